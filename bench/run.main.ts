// What `npm run bench` runs once run.ts has checked its options: the scenarios, each beside its
// reference, and the report they are written to. Imported only then, as it loads the product and
// every scenario's dependencies, which a refusal or `--help` has no use for.
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { ApiKeyService } from '../src/features/api-keys/api-key.service.js';
import { createDatabase } from '../src/platform/db/database.js';
import { InstanceSecretService } from '../src/features/secrets/instance-secret.service.js';
import { SubmissionCursors } from '../src/features/submissions/submission-cursor.js';
import { FORM_BODY, JSON_BODY, SEEDING_BUSY_TIMEOUT_MS, addHooks, addRecipient, benchAccount, freshDatabase, indexSeededSqliteRows, load, loadWithCpu, recountPostgresForms, recountSqliteForms, timeRequests, type BenchDialect, type BenchRow, type CpuPerRequest, type LoadResult } from './lib.js';
import { startFormgate, startReference, type Child } from './servers.js';
import { median, medianBy } from './stats.js';
import { memoryOf } from './proc.js';
import { MACHINE, writeReport, type ReportSettings, type StoredRow } from './report.js';
import { formsListScenario, searchScenario } from './dashboard.js';
import { exportScenario } from './export.js';
import { integrationsScenario } from './integrations.js';
import { confirmationsScenario } from './confirmations.js';
import { soakScenario } from './soak.js';
import { rejectedScenario } from './rejected.js';
import { uploadsScenario } from './uploads.js';
import { sealedScenario } from './sealed.js';
import { spamChecksScenario } from './spam-checks.js';
import { receiverEnv, startReceiver } from './receiver.js';
import { startSmtpSink } from './smtp-sink.js';
import type { RunOptions } from './run.options.js';

/** Idle memory is read this long after the listening line, where its target applies… */
const IDLE_SETTLE_MS = 2_000;
/** …and again once V8's memory reducer has given back what start-up used (informational). */
const IDLE_REDUCED_MS = 30_000;

const rows: BenchRow[] = [];
const ratio = (a: number, b: number) => (b === 0 ? '—' : (a / b).toFixed(2));
const cpuTotal = (cpu: CpuPerRequest) => cpu.server + cpu.postgres + cpu.loadGenerator + cpu.other;
const describeCpu = (cpu: CpuPerRequest) => `${cpu.server} / ${cpu.postgres} / ${cpu.loadGenerator}, ${cpu.busyPercent}%`;

async function fixtures(url: string) {
  const { handle, accountId, forms } = await benchAccount(url, 2);
  const form = await forms.createForm(accountId, { name: 'Bench' });
  const apiKey = (await new ApiKeyService(handle.db).createApiKey(accountId, 'bench')).apiKey;
  return { handle, accountId, form, forms, apiKey };
}

async function submitScenario(db: BenchDialect, options: RunOptions): Promise<void> {
  const database = await freshDatabase(db);
  const refDatabase = await freshDatabase(db);
  const { handle, form } = await fixtures(database.url);
  await handle.close();
  const server = await startFormgate(database.url);
  // Idle memory, no request yet: as the listening line is printed, 2 s later (the target), and at
  // 30 s, after V8's memory reducer ran (~8 s after the last full collection; on PostgreSQL the
  // first background queries cause one 2–15 s after start).
  const pid = server.process.pid!;
  const atListen = memoryOf(pid).rssMb;
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const settled = memoryOf(pid).rssMb;
  await new Promise((resolve) => setTimeout(resolve, IDLE_REDUCED_MS - IDLE_SETTLE_MS));
  const reduced = memoryOf(pid).rssMb;
  rows.push(
    { db, scenario: 'memory', metric: `idle RSS (MB) ${IDLE_SETTLE_MS / 1000} s after it starts listening, no request yet, vs as it starts listening`, value: String(settled), reference: String(atListen), ratio: ratio(settled, atListen), target: '< 100 MB', pass: settled < 100 },
    { db, scenario: 'memory', metric: `idle RSS (MB) ${IDLE_REDUCED_MS / 1000} s after it starts listening (V8's memory reducer has run) vs at ${IDLE_SETTLE_MS / 1000} s`, value: String(reduced), reference: String(settled), ratio: ratio(reduced, settled) },
  );
  const bare = await startReference('bare');
  const insert = await startReference('insert', refDatabase.url);
  const groupDatabase = await freshDatabase(db);
  const group = await startReference('group', groupDatabase.url);
  try {
    const path = `/v1/submit/${form.id}`;
    const run = (child: Child, body: string, contentType: string) => loadWithCpu(child, path, body, contentType, options.seconds);
    for (const [label, body, type] of [['JSON', JSON_BODY, 'application/json'], ['urlencoded', FORM_BODY, 'application/x-www-form-urlencoded']] as const) {
      await run(server, body, type); // warm-up
      // Interleaved rounds, median of each: the machine's drift hits all three alike.
      await run(group, body, type);
      type Measured = Awaited<ReturnType<typeof run>>;
      const rounds: Array<[Measured, Measured, Measured, Measured]> = [];
      for (let round = 0; round < options.rounds; round++) {
        rounds.push([await run(server, body, type), await run(group, body, type), await run(insert, body, type), await run(bare, body, type)]);
      }
      const [formgate, limit, oneInsert, ceiling] = ([0, 1, 2, 3] as const).map((i) => medianBy(rounds.map((r) => r[i]), (m) => m.rps)) as [Measured, Measured, Measured, Measured];
      if (formgate.errors > 0) throw new Error(`${label} submit: ${formgate.errors} errors`);
      const vsLimit = formgate.rps / limit.rps;
      // p99 of each side from the round whose throughput was the median.
      rows.push(
        { db, scenario: `submit ${label}`, metric: 'req/s vs the group-commit limit', value: String(formgate.rps), reference: String(limit.rps), ratio: vsLimit.toFixed(2), target: '≥ 0.60', pass: vsLimit >= 0.6 },
        {
          db,
          scenario: `submit ${label}`,
          metric: 'p50 / p99 latency ms (vs one insert per request)',
          value: `${formgate.p50} / ${formgate.p99}`,
          reference: `${oneInsert.p50} / ${oneInsert.p99}`,
          ratio: ratio(formgate.p99, oneInsert.p99),
          target: 'p99 ≤ 1.00',
          pass: formgate.p99 <= oneInsert.p99,
        },
        { db, scenario: `submit ${label}`, metric: 'req/s vs one insert per request', value: String(formgate.rps), reference: String(oneInsert.rps), ratio: ratio(formgate.rps, oneInsert.rps) },
        {
          db,
          scenario: `submit ${label}`,
          metric: 'CPU µs per request: server / PostgreSQL / load generator, and % of the cores busy (vs the group-commit limit; ratio of the totals)',
          value: describeCpu(formgate.cpu),
          reference: describeCpu(limit.cpu),
          ratio: ratio(cpuTotal(formgate.cpu), cpuTotal(limit.cpu)),
        },
        { db, scenario: `submit ${label}`, metric: 'req/s vs bare Fastify route (the group-commit limit: ' + ratio(limit.rps, ceiling.rps) + ' of it)', value: String(formgate.rps), reference: String(ceiling.rps), ratio: ratio(formgate.rps, ceiling.rps) },
      );
    }
    const memory = memoryOf(server.process.pid!);
    const peakLimit = db === 'sqlite' ? 160 : 180;
    rows.push({ db, scenario: 'memory', metric: 'peak RSS under submit load (MB)', value: String(memory.peakMb), reference: String(peakLimit), ratio: ratio(memory.peakMb, peakLimit), target: `< ${peakLimit} MB`, pass: memory.peakMb < peakLimit });
  } finally {
    await Promise.all([server.stop(), bare.stop(), insert.stop(), group.stop()]);
    await database.drop();
    await refDatabase.drop();
    await groupDatabase.drop();
  }
}

async function bulkInsert(db: BenchDialect, url: string, formId: string, count: number): Promise<void> {
  const base = Date.parse('2025-01-01T00:00:00.000Z');
  if (db === 'sqlite') {
    // A running server may hold the write lock in turn with its purge and indexer: wait it out.
    const sqlite = new SqliteDatabase(url.slice('sqlite:'.length), { timeout: SEEDING_BUSY_TIMEOUT_MS });
    const statement = sqlite.prepare(
      "insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer) values (?, ?, ?, 'delivered', 0, ?, '203.0.113.9', 'XX', 'bench', '')",
    );
    sqlite.transaction(() => {
      for (let i = 0; i < count; i++) statement.run(`sub_${String(i).padStart(16, '0')}`, formId, new Date(base + Math.floor(i / 3)).toISOString(), `{"n":${i}}`);
    })();
    recountSqliteForms(sqlite);
    sqlite.close();
    await indexSeededSqliteRows(url);
    return;
  }
  const handle = createDatabase(url, { poolSize: 1 });
  // In statements of at most 100,000 rows: each stays well under the pool's statement timeout,
  // whatever the machine's speed (a million rows in one statement can outlast it on a slow one).
  const CHUNK = 100_000;
  for (let from = 0; from < count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK) - 1;
    await sql`insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer)
      select 'sub_' || lpad(g::text, 16, '0'), ${formId},
        to_char(timestamp '2025-01-01' + (g / 3) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'delivered', 0, '{"n":' || g || '}', '203.0.113.9', 'XX', 'bench', ''
      from generate_series(${from}::bigint, ${to}::bigint) g`.execute(handle.db);
  }
  await recountPostgresForms(handle.db);
  await sql`analyze submissions`.execute(handle.db);
  await handle.close();
}

async function pagingScenario(db: BenchDialect, options: RunOptions): Promise<void> {
  const database = await freshDatabase(db);
  const { handle, form, apiKey } = await fixtures(database.url);
  await handle.close();
  const server = await startFormgate(database.url);
  const idle = memoryOf(server.process.pid!).rssMb;
  await server.stop();
  const started = Date.now();
  await bulkInsert(db, database.url, form.id, options.rows);
  const insertSeconds = ((Date.now() - started) / 1000).toFixed(1);
  const reader = createDatabase(database.url, { poolSize: 1 });
  const deep = await reader.db
    .selectFrom('submissions')
    .select(['created_at', 'id'])
    .where('form_id', '=', form.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(Math.min(100_000, options.rows - 26))
    .limit(1)
    .executeTakeFirstOrThrow();
  // Signed with the database's own cursor secret, so the server accepts it as one it issued.
  const deepCursor = await new SubmissionCursors(new InstanceSecretService(reader.db)).issue(form.id, { createdAt: deep.created_at, id: deep.id });
  await reader.close();
  const again = await startFormgate(database.url);
  try {
    const headers = { authorization: `Bearer ${apiKey}` };
    const base = `${again.url}/v1/api/forms/${form.id}/submissions?limit=25`;
    const deepUrl = `${base}&cursor=${deepCursor}`;
    // 110 requests in all: under the API's 120 a minute per key.
    await timeRequests(base, headers, 5);
    await timeRequests(deepUrl, headers, 5);
    const first = await timeRequests(base, headers, 50);
    const deepMedian = await timeRequests(deepUrl, headers, 50);
    const afterRows = memoryOf(again.process.pid!).rssMb;
    rows.push(
      { db, scenario: `paging (${options.rows.toLocaleString('en')} rows, inserted in ${insertSeconds} s)`, metric: 'median ms, page 100,000 rows deep vs first page', value: deepMedian.toFixed(2), reference: first.toFixed(2), ratio: ratio(deepMedian, first), ...(db === 'sqlite' ? { target: '≤ 1.5', pass: deepMedian / first <= 1.5 } : {}) },
      { db, scenario: 'memory', metric: `RSS after serving ${options.rows.toLocaleString('en')} stored rows vs empty database (MB)`, value: String(afterRows), reference: String(idle), ratio: ratio(afterRows, idle) },
    );
  } finally {
    await again.stop();
    await database.drop();
  }
}

/**
 * Submit load on a warm server while its background retention purge deletes `--purge-rows` expired
 * rows of another form, vs the same load while the purge has nothing to do, interleaved per
 * round (target: p99 within 1.3×). The purge runs every second here (RETENTION_PURGE_INTERVAL_MS)
 * so that it starts on the warm server soon after the expired rows are inserted.
 */
async function purgeScenario(db: BenchDialect, options: RunOptions): Promise<void> {
  const database = await freshDatabase(db);
  const { handle, accountId, form, forms } = await fixtures(database.url);
  const expiring = await forms.createForm(accountId, { name: 'Expiring', retentionDays: 1 });
  await handle.close();
  const reader = createDatabase(database.url, { poolSize: 1 });
  const remaining = async () =>
    Number((await reader.db.selectFrom('submissions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('form_id', '=', expiring.id).executeTakeFirstOrThrow()).n);
  const untilPurged = async (below: number) => {
    const deadline = Date.now() + 600_000;
    while ((await remaining()) > below && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  };
  const server = await startFormgate(database.url, { RETENTION_PURGE_INTERVAL_MS: '1000' });
  const rounds: Array<{ during: LoadResult; without: LoadResult; purgedDuringLoad: number; rowsPerSecond: number }> = [];
  try {
    const run = () => load({ url: `${server.url}/v1/submit/${form.id}`, body: JSON_BODY, contentType: 'application/json', seconds: options.seconds });
    await run(); // warm-up
    for (let round = 0; round < options.rounds; round++) {
      const without = await run();
      await bulkInsert(db, database.url, expiring.id, options.purgeRows); // rows from 2025: past a 1-day window
      await untilPurged(options.purgeRows - 1); // the purge has started
      const started = performance.now();
      const before = await remaining();
      const during = await run();
      const after = await remaining();
      if (after === 0) process.stdout.write(`purge (${db}): it finished before the load did; raise --purge-rows\n`);
      await untilPurged(0);
      const rowsPerSecond = before / ((performance.now() - started) / 1000);
      if (during.errors > 0 || without.errors > 0) throw new Error('purge scenario: submit errors');
      rounds.push({ during, without, purgedDuringLoad: before - after, rowsPerSecond });
    }
  } finally {
    await server.stop();
    await reader.close();
    await database.drop();
  }
  const during = medianBy(rounds.map((r) => r.during), (m) => m.p99);
  const without = medianBy(rounds.map((r) => r.without), (m) => m.p99);
  const p99Ratio = during.p99 / without.p99;
  const rowsPerSecond = median(rounds.map((r) => r.rowsPerSecond));
  rows.push(
    { db, scenario: 'retention purge', metric: `submit p99 ms while the purge deletes ${options.purgeRows.toLocaleString('en')} rows vs no purge`, value: String(during.p99), reference: String(without.p99), ratio: p99Ratio.toFixed(2), ...(db === 'sqlite' ? { target: '≤ 1.3', pass: p99Ratio <= 1.3 } : {}) },
    { db, scenario: 'retention purge', metric: 'submit req/s while purging vs no purge', value: String(medianBy(rounds.map((r) => r.during), (m) => m.rps).rps), reference: String(medianBy(rounds.map((r) => r.without), (m) => m.rps).rps), ratio: ratio(medianBy(rounds.map((r) => r.during), (m) => m.rps).rps, medianBy(rounds.map((r) => r.without), (m) => m.rps).rps) },
    { db, scenario: 'retention purge', metric: 'rows purged during the measured load (fewest of the rounds); purge rows/s under load', value: String(Math.min(...rounds.map((r) => r.purgedDuringLoad))), reference: rowsPerSecond.toFixed(0), ratio: '—' },
  );
}

/**
 * A control form and a form with outbound work, each loaded once to warm up, then in `rounds`
 * interleaved rounds, so the machine's drift hits both alike: [control, subject] per round.
 */
async function warmedInterleavedRounds(run: (formId: string) => Promise<LoadResult>, controlId: string, subjectId: string, rounds: number): Promise<Array<[LoadResult, LoadResult]>> {
  await run(controlId);
  await run(subjectId);
  const results: Array<[LoadResult, LoadResult]> = [];
  for (let round = 0; round < rounds; round++) results.push([await run(controlId), await run(subjectId)]);
  return results;
}

/**
 * `count` submissions at once, then the rate at which `received()` sees what they cause arrive,
 * from the first request to the last arrival (or to `limitMs`), per second.
 */
async function sustainedRate(url: string, count: number, received: () => number, limitMs: number): Promise<string> {
  const before = received();
  const started = performance.now();
  await load({ url, body: JSON_BODY, contentType: 'application/json', seconds: 0, amount: count, connections: 20 });
  while (received() - before < count && performance.now() - started < limitMs) await new Promise((r) => setTimeout(r, 50));
  return ((received() - before) / ((performance.now() - started) / 1000)).toFixed(0);
}

async function hooksScenario(db: BenchDialect, options: RunOptions): Promise<void> {
  const slow = await startReceiver(2000);
  const fast = await startReceiver(0);
  const database = await freshDatabase(db);
  const { handle, accountId, form, forms } = await fixtures(database.url);
  const hooked = await forms.createForm(accountId, { name: 'Hooked' });
  await addHooks(handle, accountId, hooked.id, `${slow.url}/slow`, 10);
  const server = await startFormgate(database.url, receiverEnv(slow.caFile));
  try {
    const run = (formId: string) => load({ url: `${server.url}/v1/submit/${formId}`, body: JSON_BODY, contentType: 'application/json', seconds: options.seconds });
    // The hooked run's warm-up opens the TLS connections to the receiver and leaves a backlog,
    // the steady state of a slow target; median p99 of each.
    const rounds = await warmedInterleavedRounds(run, form.id, hooked.id, options.rounds);
    const without = medianBy(rounds.map((r) => r[0]), (m) => m.p99);
    const withHooks = medianBy(rounds.map((r) => r[1]), (m) => m.p99);
    const p99Ratio = withHooks.p99 / without.p99;
    rows.push({ db, scenario: 'hook fan-out', metric: 'submit p99 ms, 10 hooks to a 2 s receiver vs no hooks', value: String(withHooks.p99), reference: String(without.p99), ratio: p99Ratio.toFixed(2), ...(db === 'sqlite' ? { target: '≤ 1.3', pass: p99Ratio <= 1.3 } : {}) });
    rows.push({ db, scenario: 'hook fan-out', metric: 'deliveries to the slow receiver started meanwhile', value: String(slow.received()), reference: '—', ratio: '—' });
  } finally {
    await server.stop();
  }
  // Throughput on its own server and database: the slow backlog above must not compete.
  const throughputDatabase = await freshDatabase(db);
  const throughput = await fixtures(throughputDatabase.url);
  await addHooks(throughput.handle, throughput.accountId, throughput.form.id, `${fast.url}/fast`, 1);
  const throughputForm = throughput.form;
  const fastServer = await startFormgate(throughputDatabase.url, receiverEnv(fast.caFile));
  try {
    const perSecond = await sustainedRate(`${fastServer.url}/v1/submit/${throughputForm.id}`, 2000, () => fast.received(), 60_000);
    rows.push({ db, scenario: 'hook fan-out', metric: 'deliveries per second the dispatcher sustains (fast receiver)', value: perSecond, reference: '—', ratio: '—' });
  } finally {
    await fastServer.stop();
    await throughput.handle.close();
    await throughputDatabase.drop();
    await handle.close();
    await database.drop();
    await slow.close();
    await fast.close();
  }
}

async function emailScenario(db: BenchDialect, options: RunOptions): Promise<void> {
  const sink = await startSmtpSink(50);
  const database = await freshDatabase(db);
  const { handle, accountId, form, forms } = await fixtures(database.url);
  const notified = await forms.createForm(accountId, { name: 'Notified' });
  await addRecipient(handle, notified.id, 'owner@example.com');
  const server = await startFormgate(database.url, { SMTP_URL: sink.url });
  try {
    const run = (formId: string) => load({ url: `${server.url}/v1/submit/${formId}`, body: JSON_BODY, contentType: 'application/json', seconds: options.seconds });
    // The notified run's warm-up opens the SMTP connections and leaves a backlog, the steady
    // state of a busy form; medians of each.
    const rounds = await warmedInterleavedRounds(run, form.id, notified.id, options.rounds);
    const offRps = medianBy(rounds.map((r) => r[0]), (m) => m.rps);
    const onRps = medianBy(rounds.map((r) => r[1]), (m) => m.rps);
    const offP99 = medianBy(rounds.map((r) => r[0]), (m) => m.p99);
    const onP99 = medianBy(rounds.map((r) => r[1]), (m) => m.p99);
    const rpsRatio = onRps.rps / offRps.rps;
    const p99Ratio = onP99.p99 / offP99.p99;
    rows.push({ db, scenario: 'email notifications', metric: 'submit req/s, every submission emailed (SMTP sink answering after 50 ms) vs notifications off', value: String(onRps.rps), reference: String(offRps.rps), ratio: rpsRatio.toFixed(2), target: '≥ 0.90', pass: rpsRatio >= 0.9 });
    rows.push({ db, scenario: 'email notifications', metric: 'submit p99 ms, notifications on vs off', value: String(onP99.p99), reference: String(offP99.p99), ratio: p99Ratio.toFixed(2), target: '≤ 1.3', pass: p99Ratio <= 1.3 });
  } finally {
    await server.stop();
    await handle.close();
    await database.drop();
  }
  // The dispatcher's email rate on its own server and database: the backlog above must not count.
  const rateDatabase = await freshDatabase(db);
  const rate = await fixtures(rateDatabase.url);
  await addRecipient(rate.handle, rate.form.id, 'owner@example.com');
  const rateServer = await startFormgate(rateDatabase.url, { SMTP_URL: sink.url });
  try {
    const perSecond = await sustainedRate(`${rateServer.url}/v1/submit/${rate.form.id}`, 1000, () => sink.received(), 120_000);
    rows.push({ db, scenario: 'email notifications', metric: 'emails per second the dispatcher sustains (SMTP sink answering after 50 ms)', value: perSecond, reference: '—', ratio: '—' });
  } finally {
    await rateServer.stop();
    await rate.handle.close();
    await rateDatabase.drop();
    await sink.close();
  }
}

/** Runs the `--only` scenarios on each `--db`, then prints every row measured. */
export async function runScenarios(options: RunOptions, report: Pick<ReportSettings, 'groups' | 'seconds' | 'rounds'>): Promise<void> {
  const measured: StoredRow[] = [];
  const writeResults = () => writeReport(measured, { ...report, idleSettleMs: IDLE_SETTLE_MS, idleReducedMs: IDLE_REDUCED_MS });

  /** Runs one `--only` scenario and files its rows under its name. */
  const measure = async (group: string, db: BenchDialect, scenario: () => Promise<BenchRow[] | void>): Promise<void> => {
    if (!options.only.has(group)) return;
    const before = rows.length;
    const returned = await scenario();
    if (returned) rows.push(...returned);
    const measuredOn = new Date().toISOString().slice(0, 10);
    measured.push(...rows.slice(before).map((row) => ({ ...row, group, measuredOn, machine: MACHINE })));
    // After every scenario: a crash later in a long run keeps what was measured.
    writeResults();
  };

  for (const db of options.dialects) {
    await measure('submit', db, () => submitScenario(db, options));
    await measure('paging', db, () => pagingScenario(db, options));
    await measure('spam-checks', db, () => spamChecksScenario(db, options.seconds, options.rounds));
    await measure('hooks', db, () => hooksScenario(db, options));
    await measure('search', db, () => searchScenario(db, options.rows));
    await measure('forms-list', db, () => formsListScenario(db));
    await measure('purge', db, () => purgeScenario(db, options));
    await measure('email', db, () => emailScenario(db, options));
    await measure('export', db, () => exportScenario(db, { rows: options.exportRows, seconds: options.seconds, rounds: options.rounds }));
    await measure('integrations', db, () => integrationsScenario(db, { seconds: options.seconds, rounds: options.rounds }));
    await measure('confirmations', db, () => confirmationsScenario(db, { seconds: options.seconds, rounds: options.rounds }));
    await measure('soak', db, () => soakScenario(db, { seconds: options.soakSeconds }));
    await measure('rejected', db, () => rejectedScenario(db, { seconds: options.seconds, rounds: options.rounds }));
    await measure('uploads', db, () => uploadsScenario(db, { seconds: options.seconds, rounds: options.rounds }));
    await measure('sealed', db, () => sealedScenario(db, options.seconds, options.rounds));
    process.stdout.write(`${db} done\n`);
  }
  writeResults();
  for (const r of rows) process.stdout.write(`${r.db}\t${r.scenario}\t${r.metric}\t${r.value}\t${r.reference}\t${r.ratio}\t${r.target ? (r.pass ? 'PASS' : 'MISS') : ''}\n`);
}
