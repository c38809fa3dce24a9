import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Tally } from './tally.js';

/**
 * A loopback SMTP server that accepts every message `delayMs` after its data, counting them, and
 * tallying them by their `X-Formgate-Submission-Id` header (duplicates show up there).
 */
export async function startSmtpSink(delayMs: number) {
  let received = 0;
  const bySubmission = new Tally();
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      // Only the header block is kept: the body can be large and is not looked at.
      let head = '';
      let headDone = false;
      stream.on('data', (chunk: Buffer) => {
        if (headDone) return;
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end >= 0 || head.length > 65_536) {
          headDone = true;
          if (end >= 0) head = head.slice(0, end);
        }
      });
      stream.on('end', () =>
        setTimeout(() => {
          received++;
          const id = /^X-Formgate-Submission-Id:\s*(\S+)/im.exec(head)?.[1];
          if (id) bySubmission.add(id);
          callback();
        }, delayMs),
      );
    },
  });
  server.on('error', () => {});
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    received: () => received,
    /** Messages per submission ID since the last reset. */
    bySubmission,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
