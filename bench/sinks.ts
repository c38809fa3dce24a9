// The bench's SMTP sink and HTTPS hook receiver on a thread of their own (sinks.worker.ts): at
// thousands of messages a second their work must not delay the load generator's event loop, which
// would add latency to the runs with outbound work only.
import type { SinksRequest, SinksTally } from './sinks.worker.js';
import { typescriptWorker } from './tsx.js';

/** The SMTP sink and hook receiver on their own thread; requests are answered in order. */
export async function startSinks() {
  const worker = typescriptWorker(new URL('./sinks.worker.ts', import.meta.url));
  const waiting: Array<(value: unknown) => void> = [];
  const ready = new Promise<{ smtpUrl: string; hookUrl: string; caFile: string; threadId: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const urls = await ready;
  worker.on('message', (answer: unknown) => waiting.shift()?.(answer));
  const ask = <T>(request: SinksRequest) =>
    new Promise<T>((resolve) => {
      waiting.push(resolve as (value: unknown) => void);
      worker.postMessage(request);
    });
  return {
    ...urls,
    tally: () => ask<SinksTally>('tally'),
    reset: () => ask<unknown>('reset'),
    close: async () => {
      worker.postMessage('close' satisfies SinksRequest);
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

