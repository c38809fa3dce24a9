import { Worker } from 'node:worker_threads';

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
  /**
   * The queued message's ID (email_messages.id): its Message-ID is made from it, so every attempt
   * of one message carries the same Message-ID and a mail system that got an attempt whose answer
   * was lost can tell the retry is the same message. Absent for a message sent once, untracked.
   */
  queuedId?: string;
}

export type AttemptOutcome = 'sent' | 'retry' | 'bounced' | 'failed';

export interface SendResult {
  outcome: AttemptOutcome;
  /** The SMTP server's reply, or the connection error. */
  reply: string;
}

const TIMEOUT_MS = 30_000;

/** What the SMTP thread answers for one message: the server's reply, or what failed. */
type WorkerAnswer = { id: number; response: string } | { id: number; error: SmtpError };

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
}

/**
 * A queued message's ID as the left part of a Message-ID (RFC 5322 3.6.4: dot-atom text). A
 * digest's ID holds its period's start time, whose colons may not appear there: every character
 * but letters, digits, `.`, `_` and `-` becomes `=` and its code in hex, `=` included, so two IDs
 * never make one Message-ID.
 */
function messageIdLocalPart(queuedId: string): string {
  return queuedId.replace(/[^A-Za-z0-9._-]/g, (c) => `=${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * SMTP through nodemailer on a worker thread of its own (smtp.worker.js), started with the first
 * message: with SMTP_URL unset nothing starts. Composing a message into MIME and writing it
 * costs the event loop about as much as answering a submission, so at a steady rate of emailed
 * submissions it runs beside the event loop, not on it. What is sent, when, and what an answer
 * means stay here and in the email channel: the thread only sends. `smtp://` upgrades with
 * STARTTLS whenever the server offers it; `smtps://` is TLS from the first byte. Connections are
 * pooled.
 */
export class SmtpMailer {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, (result: SendResult) => void>();
  private nextId = 0;
  /** The From address's domain: Message-IDs are unique within it (RFC 5322 section 3.6.4). */
  private readonly messageIdDomain: string;

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
    private readonly transport: MailTransportOptions = {},
    private readonly maxConnections = 8,
  ) {
    // MAIL_FROM is `Name <user@domain>` or `user@domain`, one line (config.ts).
    this.messageIdDomain = /@([^@\s<>"]+)>?\s*$/.exec(from)?.[1] ?? 'formgate.invalid';
  }

  private open(): Worker {
    if (this.worker) return this.worker;
    const url = new URL(this.smtpUrl);
    const worker = new Worker(new URL('./smtp.worker.js', import.meta.url), {
      workerData: {
        transport: {
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
        },
      },
      // Messages are small and stream through: a small heap keeps the thread's memory low.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
    });
    worker.on('message', (answer: WorkerAnswer) => {
      const done = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) worker.unref();
      done?.('error' in answer ? classifySmtpError(answer.error) : { outcome: 'sent', reply: answer.response.slice(0, 500) });
    });
    const stopped = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Whatever it was sending is not known to have been accepted: sent again later.
      for (const done of this.waiting.values()) done({ outcome: 'retry', reply: `the SMTP thread stopped: ${reason}` });
      this.waiting.clear();
    };
    worker.on('error', (err) => stopped(err.message));
    worker.on('exit', (code) => stopped(`exit code ${code}`));
    // Only a message being sent keeps the process alive.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** One attempt; never throws: the outcome says whether to retry. */
  send(email: OutgoingEmail): Promise<SendResult> {
    return new Promise((resolve) => {
      let worker: Worker;
      try {
        worker = this.open();
      } catch (err) {
        resolve({ outcome: 'retry', reply: `the SMTP thread did not start: ${err instanceof Error ? err.message : String(err)}` });
        return;
      }
      const id = this.nextId++;
      this.waiting.set(id, resolve);
      worker.ref();
      worker.postMessage({
        id,
        mail: {
          from: this.from,
          to: email.toHeader,
          envelope: { from: this.from, to: [email.envelopeTo] },
          ...(email.replyTo ? { replyTo: { name: '', address: email.replyTo } } : {}),
          subject: email.subject,
          text: email.text,
          html: email.html,
          headers: email.headers ?? {},
          ...(email.queuedId ? { messageId: `<${messageIdLocalPart(email.queuedId)}@${this.messageIdDomain}>` } : {}),
          disableFileAccess: true,
          disableUrlAccess: true,
        },
      });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    // Kept alive until it has closed its connections: nothing else may be left to wait on.
    worker.ref();
    worker.postMessage('close');
    await exited;
  }
}

/**
 * SMTP 4xx, timeouts and connection errors are temporary (retry). A 5xx to the envelope or the
 * message is about the recipient: bounced. Any other 5xx (authentication, a refused sender) is a
 * configuration problem, not the address's: failed, without blaming the address.
 */
function classifySmtpError(e: SmtpError): SendResult {
  const reply = (e.response ?? e.message ?? 'unknown error').replace(/\s+/g, ' ').slice(0, 500);
  const code = e.responseCode;
  if (code !== undefined && code >= 500) {
    const aboutRecipient = (e.code === 'EENVELOPE' && !/MAIL FROM/i.test(String(e.command))) || e.code === 'EMESSAGE';
    return { outcome: aboutRecipient ? 'bounced' : 'failed', reply };
  }
  return { outcome: 'retry', reply: code === undefined && e.code ? `${e.code}: ${reply}` : reply };
}
