import type { Transporter } from 'nodemailer';

/** Test seam: trust a local CA for STARTTLS / smtps. Production passes nothing. */
export interface MailTransportOptions {
  ca?: string;
}

export interface OutgoingEmail {
  /** The To header: every verified recipient of the form (or the one address). */
  toHeader: string[];
  /** The SMTP envelope: exactly the address this message is for. */
  envelopeTo: string;
  replyTo?: string | undefined;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export type AttemptOutcome = 'sent' | 'retry' | 'bounced' | 'failed';

export interface SendResult {
  outcome: AttemptOutcome;
  /** The SMTP server's reply, or the connection error. */
  reply: string;
}

const TIMEOUT_MS = 30_000;

/**
 * SMTP through nodemailer, loaded only when the first message is sent: with SMTP_URL unset the
 * module is never imported. `smtp://` upgrades with STARTTLS whenever the server offers it;
 * `smtps://` is TLS from the first byte. Connections are pooled.
 */
export class SmtpMailer {
  private transporter: Promise<Transporter> | undefined;

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
    private readonly transport: MailTransportOptions = {},
    private readonly maxConnections = 8,
  ) {}

  private open(): Promise<Transporter> {
    this.transporter ??= import('nodemailer').then((nodemailer) => {
      const url = new URL(this.smtpUrl);
      return nodemailer.createTransport({
        pool: true,
        maxConnections: this.maxConnections,
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
        secure: url.protocol === 'smtps:',
        ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
        ...(this.transport.ca ? { tls: { ca: this.transport.ca } } : {}),
      });
    });
    return this.transporter;
  }

  /** One attempt; never throws: the outcome says whether to retry. */
  async send(email: OutgoingEmail): Promise<SendResult> {
    try {
      const transporter = await this.open();
      const info = await transporter.sendMail({
        from: this.from,
        to: email.toHeader,
        envelope: { from: this.from, to: [email.envelopeTo] },
        ...(email.replyTo ? { replyTo: { name: '', address: email.replyTo } } : {}),
        subject: email.subject,
        text: email.text,
        html: email.html,
        headers: email.headers ?? {},
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      return { outcome: 'sent', reply: String(info.response ?? '250 OK').slice(0, 500) };
    } catch (err) {
      return classifySmtpError(err);
    }
  }

  async close(): Promise<void> {
    if (!this.transporter) return;
    const transporter = await this.transporter.catch(() => undefined);
    transporter?.close();
  }
}

/**
 * SMTP 4xx, timeouts and connection errors are temporary (retry). A 5xx to the envelope or the
 * message is about the recipient: bounced. Any other 5xx (authentication, a refused sender) is a
 * configuration problem, not the address's: failed, without blaming the address.
 */
function classifySmtpError(err: unknown): SendResult {
  const e = err as { code?: string; responseCode?: number; response?: string; message?: string };
  const reply = (e.response ?? e.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 500);
  const code = e.responseCode;
  if (code !== undefined && code >= 500) {
    const aboutRecipient = (e.code === 'EENVELOPE' && !/MAIL FROM/i.test(String((err as { command?: string }).command))) || e.code === 'EMESSAGE';
    return { outcome: aboutRecipient ? 'bounced' : 'failed', reply };
  }
  return { outcome: 'retry', reply: code === undefined && e.code ? `${e.code}: ${reply}` : reply };
}
