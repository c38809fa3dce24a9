// The thread of bench/sinks.ts: an SMTP sink and an HTTPS hook receiver, both answering at once,
// tallying what they received by submission ID.
import { readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { startReceiver } from './receiver.js';
import { startSmtpSink } from './smtp-sink.js';

export type SinksRequest = 'tally' | 'reset' | 'close';
export interface SinksTally {
  emails: { distinct: number; duplicates: number };
  hooks: { distinct: number; duplicates: number };
}

const port = parentPort!;
const sink = await startSmtpSink(0);
const receiver = await startReceiver(0);
const counts = (t: { distinct: number; duplicates: number }) => ({ distinct: t.distinct, duplicates: t.duplicates });
port.on('message', async (request: SinksRequest) => {
  if (request === 'reset') {
    sink.bySubmission.reset();
    receiver.bySubmission.reset();
    port.postMessage('reset');
  } else if (request === 'tally') {
    port.postMessage({ emails: counts(sink.bySubmission), hooks: counts(receiver.bySubmission) } satisfies SinksTally);
  } else {
    await Promise.all([sink.close(), receiver.close()]);
    port.close();
  }
});
// The thread's ID (Linux), so the bench can tell the sinks' CPU from the load generator's.
const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
port.postMessage({ smtpUrl: sink.url, hookUrl: receiver.url, caFile: receiver.caFile, threadId });
