import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import selfsigned from 'selfsigned';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  parsed: ParsedMail;
  raw: string;
  /** Whether the session was encrypted (STARTTLS or smtps). */
  secure: boolean;
}

/** An SMTP answer the sink gives instead of accepting: e.g. `{ code: 451, message: 'try later' }`. */
export interface SmtpRefusal {
  code: number;
  message: string;
}

export interface SmtpSink {
  /** smtp://127.0.0.1:<port> (or smtps:// with `implicitTls`). */
  url: string;
  port: number;
  /** PEM of the certificate when TLS is on, for the client's CA. */
  ca: string | undefined;
  received: ReceivedMail[];
  /** Every RCPT TO seen, accepted or not. */
  rcptAttempts: string[];
  /** Decides the RCPT TO answer per address; undefined accepts. */
  onRecipient(decide: (address: string) => SmtpRefusal | undefined): void;
  /** Delays the answer to every message's data (a slow server). */
  delayData(ms: number): void;
  /** While on, message data is read and never answered: the client waits, nothing is accepted. */
  holdData(on: boolean): void;
  /** How many messages are being held unanswered. */
  held(): number;
  /** Messages to `address`. */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Offer STARTTLS with a self-signed certificate for 127.0.0.1. */
  starttls?: boolean;
  /** TLS from the first byte (smtps). */
  implicitTls?: boolean;
  /** Count and discard messages without parsing them (benchmarks). */
  discard?: boolean;
  /** Listen on this port (e.g. one a client already failed to reach) instead of a free one. */
  port?: number;
}

async function certificate(): Promise<{ key: string; cert: string }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** A real SMTP server (the smtp-server package) on a free loopback port, keeping what it receives. */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const tls = options.starttls || options.implicitTls ? await certificate() : undefined;
  const received: ReceivedMail[] = [];
  const rcptAttempts: string[] = [];
  let decide: (address: string) => SmtpRefusal | undefined = () => undefined;
  let dataDelayMs = 0;
  let holding = false;
  let heldCount = 0;
  const refusal = (r: SmtpRefusal) => Object.assign(new Error(r.message), { responseCode: r.code });

  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    secure: options.implicitTls ?? false,
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    ...(options.starttls || options.implicitTls ? {} : { disabledCommands: ['STARTTLS'] }),
    onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      rcptAttempts.push(address.address);
      const answer = decide(address.address);
      callback(answer ? refusal(answer) : null);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (holding) {
          heldCount++;
          return;
        }
        const finish = () => {
          if (options.discard) {
            received.push({ envelope: { from: '', to: [] }, parsed: undefined as unknown as ParsedMail, raw: '', secure: session.secure });
            callback();
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw).then(
            (parsed) => {
              const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
              received.push({ envelope: { from, to: session.envelope.rcptTo.map((r) => r.address) }, parsed, raw, secure: session.secure });
              callback();
            },
            (err: Error) => callback(err),
          );
        };
        if (dataDelayMs > 0) setTimeout(finish, dataDelayMs);
        else finish();
      });
    },
  });
  server.on('error', () => {});
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `${options.implicitTls ? 'smtps' : 'smtp'}://127.0.0.1:${port}`,
    port,
    ca: tls?.cert,
    received,
    rcptAttempts,
    onRecipient(fn) {
      decide = fn;
    },
    delayData(ms) {
      dataDelayMs = ms;
    },
    holdData(on) {
      holding = on;
    },
    held: () => heldCount,
    to: (address) => received.filter((m) => m.envelope.to.includes(address)),
    close: async () => {
      // Held sessions would keep close() waiting: end every connection.
      for (const connection of (server as unknown as { connections: Set<{ close(): void }> }).connections ?? []) connection.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
