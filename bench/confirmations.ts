// The confirmations scenario of `npm run bench`: submit throughput and p99 of a form
// that sends the visitor a confirmation email (every submission carrying a fresh address, so no
// guard skips one) against a form without, same server and run, interleaved rounds in alternating
// order; and the confirmations the SMTP sink (answering at once) received per second meanwhile.
import { benchAccount, freshDatabase, load, type BenchDialect, type BenchRow, type LoadResult } from './lib.js';
import { startFormgate } from './servers.js';
import { median } from './stats.js';
import { startSinks } from './sinks.js';

/** The highest daily cap a form may have; each run gets a form of its own, so none reaches it. */
const DAILY_LIMIT = 100_000;

export async function confirmationsScenario(
  db: BenchDialect,
  options: { seconds: number; rounds: number },
): Promise<BenchRow[]> {
  const sinks = await startSinks();
  const database = await freshDatabase(db);
  const { handle, accountId, forms } = await benchAccount(database.url);
  const off = await forms.createForm(accountId, { name: 'Confirmations off' });
  // One form per run with confirmations on: each run's submissions stay under the form's daily cap.
  const onForms: string[] = [];
  for (let i = 0; i <= options.rounds; i++) {
    onForms.push((await forms.createForm(accountId, { name: `Confirmations on ${i}`, autoReply: { enabled: true, field: 'email' }, autoReplyDailyLimit: DAILY_LIMIT })).id);
  }
  await handle.close();
  const server = await startFormgate(database.url, { SMTP_URL: sinks.smtpUrl });
  let sent = 0;
  const run = (formId: string) =>
    load({
      url: `${server.url}/v1/submit/${formId}`,
      body: '',
      contentType: 'application/json',
      seconds: options.seconds,
      // The same body for both forms but for a fresh visitor address in each.
      setupRequest: (request) => {
        request.body = JSON.stringify({ name: 'Ada Lovelace', email: `visitor-${++sent}@example.com`, message: 'Hello from the benchmark', topics: ['a', 'b'] });
        return request;
      },
    });
  const rounds: Array<{ on: LoadResult; off: LoadResult }> = [];
  let confirmed: number;
  let measuredSeconds: number;
  try {
    // Warmed up both ways (the first run with confirmations opens the SMTP connections and leaves
    // a backlog, the steady state of a busy form), then interleaved rounds, order alternating.
    await run(off.id);
    await run(onForms[0]!);
    const before = (await sinks.tally()).emails.distinct;
    const started = performance.now();
    for (let round = 0; round < options.rounds; round++) {
      const onForm = onForms[round + 1]!;
      if (round % 2 === 0) {
        const offResult = await run(off.id);
        rounds.push({ off: offResult, on: await run(onForm) });
      } else {
        const onResult = await run(onForm);
        rounds.push({ on: onResult, off: await run(off.id) });
      }
    }
    measuredSeconds = (performance.now() - started) / 1000;
    confirmed = (await sinks.tally()).emails.distinct - before;
  } finally {
    await server.stop();
    await database.drop();
    await sinks.close();
  }
  if (rounds.some((r) => r.on.errors > 0 || r.off.errors > 0)) throw new Error('confirmations scenario: submit errors');
  const medianOf = (which: 'on' | 'off', key: 'rps' | 'p99') => median(rounds.map((r) => r[which][key]));
  const [onRps, offRps, onP99, offP99] = [medianOf('on', 'rps'), medianOf('off', 'rps'), medianOf('on', 'p99'), medianOf('off', 'p99')];
  const submittedOn = rounds.reduce((sum, r) => sum + r.on.ok, 0);
  const label = 'confirmation emails';
  return [
    { db, scenario: label, metric: 'submit req/s, every submission confirmed to a fresh address (SMTP sink answering at once) vs confirmations off', value: String(onRps), reference: String(offRps), ratio: (onRps / offRps).toFixed(2), target: '≥ 0.90', pass: onRps / offRps >= 0.9 },
    { db, scenario: label, metric: 'submit p99 ms, confirmations on vs off', value: String(onP99), reference: String(offP99), ratio: (onP99 / offP99).toFixed(2), target: '≤ 1.3', pass: onP99 / offP99 <= 1.3 },
    {
      db,
      scenario: label,
      metric: 'confirmations the sink received per second over the measured rounds vs submissions to confirm per second',
      value: (confirmed / measuredSeconds).toFixed(0),
      reference: (submittedOn / measuredSeconds).toFixed(0),
      ratio: '—',
    },
  ];
}
