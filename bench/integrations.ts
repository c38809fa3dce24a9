// The integrations scenario of `npm run bench`: submit p99 of a form with 3 integrations (Slack,
// Discord, ntfy) to a receiver that answers after 200 ms, against a form with none, same run; the
// same for a form with every kind configured (every-kind.ts); and the messages per second the
// dispatcher sustains to a receiver that answers at once.
import { newId } from '../src/platform/lib/ids.js';
import { owner } from './dashboard.js';
import { JSON_BODY, freshDatabase, load, type BenchDialect, type BenchRow, type LoadResult } from './lib.js';
import { startFormgate } from './servers.js';
import { medianBy } from './stats.js';
import { receiverEnv, startReceiver } from './receiver.js';
import { createDatabase } from '../src/platform/db/database.js';
import { everyKindRows } from './every-kind.js';

/** Three integrations of different kinds, straight into the table (`formgate integrations add` does the same). */
async function addIntegrations(url: string, formId: string, target: string): Promise<void> {
  const handle = createDatabase(url, { poolSize: 1 });
  try {
    for (const [kind, path] of [['slack', 'slack'], ['discord', 'discord'], ['ntfy', 'ntfy/topic']] as const) {
      await handle.db
        .insertInto('integrations')
        .values({ id: newId('int'), form_id: formId, kind, name: kind, enabled: 1, disabled_reason: null, url: `${target}/${path}`, token: null, chat_id: null, created_at: new Date(Date.now() - 1000).toISOString() })
        .execute();
    }
  } finally {
    await handle.close();
  }
}

export async function integrationsScenario(
  db: BenchDialect,
  options: { seconds: number; rounds: number },
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const slow = await startReceiver(200);
  const fast = await startReceiver(0);
  const database = await freshDatabase(db);
  const { formIds } = await owner(database.url, 2);
  const [plain, integrated] = formIds as [string, string];
  await addIntegrations(database.url, integrated, slow.url);
  const server = await startFormgate(database.url, receiverEnv(slow.caFile));
  try {
    const run = (formId: string) => load({ url: `${server.url}/v1/submit/${formId}`, body: JSON_BODY, contentType: 'application/json', seconds: options.seconds });
    await run(plain);
    await run(integrated);
    const rounds: Array<[LoadResult, LoadResult]> = [];
    for (let round = 0; round < options.rounds; round++) rounds.push([await run(plain), await run(integrated)]);
    const without = medianBy(rounds.map((r) => r[0]), (m) => m.p99);
    const withIntegrations = medianBy(rounds.map((r) => r[1]), (m) => m.p99);
    const ratio = withIntegrations.p99 / without.p99;
    rows.push({ db, scenario: 'integrations', metric: 'submit p99 ms, 3 integrations to a 200 ms receiver vs none', value: String(withIntegrations.p99), reference: String(without.p99), ratio: ratio.toFixed(2), target: '≤ 1.3', pass: ratio <= 1.3 });
    rows.push({ db, scenario: 'integrations', metric: 'messages to the 200 ms receiver started meanwhile', value: String(slow.received()), reference: '—', ratio: '—' });
  } finally {
    await server.stop();
    await database.drop();
  }
  try {
    rows.push(...(await everyKindRows(db, slow, options)));
  } catch (error) {
    await slow.close();
    await fast.close();
    throw error;
  }
  // Throughput on its own server and database: the backlog above must not compete.
  const throughputDatabase = await freshDatabase(db);
  const { formIds: [form] } = await owner(throughputDatabase.url, 1);
  await addIntegrations(throughputDatabase.url, form!, fast.url);
  const fastServer = await startFormgate(throughputDatabase.url, receiverEnv(fast.caFile));
  try {
    const count = 1000;
    const expected = count * 3;
    const started = performance.now();
    await load({ url: `${fastServer.url}/v1/submit/${form}`, body: JSON_BODY, contentType: 'application/json', seconds: 0, amount: count, connections: 20 });
    while (fast.received() < expected && performance.now() - started < 60_000) await new Promise((r) => setTimeout(r, 50));
    const seconds = (performance.now() - started) / 1000;
    rows.push({ db, scenario: 'integrations', metric: 'messages per second the dispatcher sustains (receiver answering at once)', value: (fast.received() / seconds).toFixed(0), reference: '—', ratio: '—' });
  } finally {
    await fastServer.stop();
    await throughputDatabase.drop();
    await slow.close();
    await fast.close();
  }
  return rows;
}
