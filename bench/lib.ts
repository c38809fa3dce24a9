import { mkdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { AccountService } from '../src/features/accounts/account.service.js';
import { parseConfig } from '../src/platform/config.js';
import { createDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { FormService } from '../src/features/forms/form.service.js';
import { newId, randomBase62 } from '../src/platform/lib/ids.js';
import { indexPendingSubmissions } from '../src/features/search/search.repository.js';
import { allPids, readProcStat, type ProcStat } from './proc.js';
import { madeForRun, removedFromRun } from './reaper.js';
import type { Answer } from './series.js';
import type { Child } from './servers.js';
import { median, percentile } from './stats.js';

export type BenchDialect = 'sqlite' | 'postgres';

/** The submission the submit, soak, export, integrations and rejected scenarios post as JSON (confirmations and spam checks post their own). */
export const JSON_BODY = JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello from the benchmark', topics: ['a', 'b'] });
/** The same fields as an HTML form posts them: the submit scenario's second body. */
export const FORM_BODY = 'name=Ada+Lovelace&email=ada%40example.com&message=Hello+from+the+benchmark&topics=a&topics=b';

/**
 * After rows were seeded straight into SQLite's submissions table: the per-form and per-hour
 * counters, which the inserting code keeps (SQLite: migration 0007; PostgreSQL: 0015), recomputed from the rows.
 */
export function recountSqliteForms(sqlite: { exec(sql: string): unknown }): void {
  sqlite.exec(`begin immediate; ${RECOUNT_FORMS.join('; ')}; commit;`);
}

const RECOUNT_FORMS = [
  'delete from form_hourly_counts',
  'delete from form_counts',
  `insert into form_hourly_counts (form_id, hour, shard, inbox, spam)
    select form_id, substr(created_at, 1, 13), 0, sum(1 - is_spam), sum(is_spam) from submissions group by form_id, substr(created_at, 1, 13)`,
  `insert into form_counts (form_id, shard, inbox, spam)
    select form_id, 0, sum(1 - is_spam), sum(is_spam) from submissions group by form_id`,
];

/** The same on PostgreSQL, whose inserting code counts too since migration 0015 (rows seeded by SQL are not counted). */
export async function recountPostgresForms(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const statement of RECOUNT_FORMS) await sql.raw(statement).execute(trx);
  });
}

/** A migrated database with one pro account, where every scenario starts (the caller closes the handle). */
export async function benchAccount(url: string, poolSize = 1): Promise<{ handle: DatabaseHandle; accountId: string; forms: FormService }> {
  const handle = createDatabase(url, { poolSize });
  await migrateToLatest(handle);
  const account = await new AccountService(handle.db, parseConfig({})).createAccount({ email: `bench-${Date.now()}@example.com`, planId: 'pro' });
  return { handle, accountId: account.id, forms: new FormService(handle.db) };
}

/**
 * How long the bench's own writes to a SQLite file wait for its lock. The purge scenario seeds
 * while the server purges in transactions of 25 rows back to back: a writer polling for the lock
 * (SQLite's busy handler) found it free too rarely within the default 5 s and failed the run.
 */
export const SEEDING_BUSY_TIMEOUT_MS = 120_000;

/**
 * After rows were seeded straight into SQLite: their search index, which a running server's
 * indexer keeps within a second of the commit (migration 0012), so a timed request does not pay
 * for a million rows' catch-up.
 */
export async function indexSeededSqliteRows(url: string): Promise<void> {
  const handle = createDatabase(url, { poolSize: 1 });
  try {
    await sql.raw(`pragma busy_timeout = ${SEEDING_BUSY_TIMEOUT_MS}`).execute(handle.db);
    // SQLite answers SQLITE_BUSY without waiting when waiting could deadlock (a running server
    // indexes and purges the same file): such a chunk is tried again.
    const deadline = Date.now() + SEEDING_BUSY_TIMEOUT_MS;
    const indexChunk = async (): Promise<number> => {
      for (;;) {
        try {
          return await handle.db.transaction().execute((trx) => indexPendingSubmissions(trx, 100_000));
        } catch (err) {
          if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    while ((await indexChunk()) === 100_000);
  } finally {
    await handle.close();
  }
}

/** One line of BENCHMARKS.md's table: a figure beside its reference, and the target it answers. */
export interface BenchRow {
  db: BenchDialect;
  scenario: string;
  metric: string;
  value: string;
  reference: string;
  ratio: string;
  target?: string;
  pass?: boolean;
}

export const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/formgate_test';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database for one scenario: a temp SQLite file, or a private PostgreSQL schema. */
export async function freshDatabase(dialect: BenchDialect): Promise<BenchDatabase> {
  if (dialect === 'sqlite') {
    const dir = join(tmpdir(), `formgate-bench-${randomBase62(10)}`);
    madeForRun('dir', dir);
    mkdirSync(dir);
    return {
      url: `sqlite:${join(dir, 'bench.db')}`,
      drop: async () => {
        rmSync(dir, { recursive: true, force: true });
        removedFromRun('dir', dir);
      },
    };
  }
  await ensureBenchDatabase();
  const schema = `bench_${randomBase62(10).toLowerCase()}`;
  madeForRun('schema', schema, PG_ADMIN_URL);
  await adminQuery(`create schema ${schema}`);
  return {
    url: `${PG_ADMIN_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    drop: async () => {
      await adminQuery(`drop schema ${schema} cascade`);
      removedFromRun('schema', schema);
    },
  };
}

const adminQuery = (text: string) => queryPostgres(PG_ADMIN_URL, text);

let benchDatabaseChecked: Promise<void> | undefined;

/** A machine whose PostgreSQL has no bench database yet gets one (through its `postgres` database), once a run. */
function ensureBenchDatabase(): Promise<void> {
  benchDatabaseChecked ??= (async () => {
    const url = new URL(PG_ADMIN_URL);
    const name = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/postgres';
    const found = await queryPostgres(url.toString(), 'select 1 from pg_database where datname = $1', [name]);
    if (found.length === 0) await queryPostgres(url.toString(), `create database "${name.replaceAll('"', '""')}"`);
  })();
  return benchDatabaseChecked;
}

/** One statement (or several, in one text, then without values) on its own connection; the rows of the last. */
export async function queryPostgres<Row extends pg.QueryResultRow = pg.QueryResultRow>(url: string, text: string, values?: unknown[]): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<Row>(text, values);
    return result.rows;
  } finally {
    await client.end();
  }
}

/** Every process of the machine as its stat read then (its command, its CPU seconds so far), by PID. */
export type CpuSnapshot = Map<number, ProcStat>;

export function cpuSnapshot(): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const pid of allPids()) {
    const stat = readProcStat(pid); // undefined if it ended meanwhile
    if (stat) snapshot.set(pid, stat);
  }
  return snapshot;
}

/** Where a load's CPU went, in µs per answered request, and how busy the machine's cores were. */
export interface CpuPerRequest {
  server: number;
  /** Every PostgreSQL process: the backends, the WAL writer and the rest. */
  postgres: number;
  /** This process: autocannon. */
  loadGenerator: number;
  other: number;
  busyPercent: number;
}

export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, serverPid: number, requests: number, seconds: number): CpuPerRequest {
  const used = { server: 0, postgres: 0, loadGenerator: 0, other: 0 };
  for (const [pid, { command, cpuSeconds }] of after) {
    const delta = cpuSeconds - (before.get(pid)?.cpuSeconds ?? 0);
    if (delta <= 0) continue;
    const role = pid === serverPid ? 'server' : command === 'postgres' ? 'postgres' : pid === process.pid ? 'loadGenerator' : 'other';
    used[role] += delta;
  }
  const perRequest = (s: number) => Math.round((s * 1e6) / Math.max(requests, 1));
  const total = used.server + used.postgres + used.loadGenerator + used.other;
  return {
    server: perRequest(used.server),
    postgres: perRequest(used.postgres),
    loadGenerator: perRequest(used.loadGenerator),
    other: perRequest(used.other),
    busyPercent: Math.round((100 * total) / (seconds * cpus().length)),
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Requests answered 2xx. */
  ok: number;
  /** With `steadyAfterSeconds`: the p99 of the answers that came after the load's first seconds. */
  steadyP99?: number;
  /** With `steadyAfterSeconds`: every answer, for the soak's per-second series (bench/series.ts). */
  answers?: Answer[];
}

/** Loads one URL with autocannon; every non-2xx answer counts as an error. */
export async function load(options: {
  url: string;
  body: string;
  contentType: string;
  seconds: number;
  connections?: number;
  /** A fixed number of requests instead of a duration. */
  amount?: number;
  /** A constant arrival rate over all connections (requests/s) instead of as fast as answered. */
  overallRate?: number;
  /** Changes each request before it is sent (e.g. a body that differs per request). */
  setupRequest?: autocannon.Request['setupRequest'];
  /**
   * Also the p99 of the answers after this many seconds: without the ramp, when the load
   * generator opens its connections at once and the server opens its own outbound ones.
   */
  steadyAfterSeconds?: number;
}): Promise<LoadResult> {
  const started = performance.now();
  const steadyLatencies: number[] = [];
  const answers: Answer[] = [];
  const instance = autocannon({
    url: options.url,
    method: 'POST',
    connections: options.connections ?? 50,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds }),
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    headers: { 'content-type': options.contentType, accept: 'application/json' },
    body: options.body,
    ...(options.setupRequest ? { requests: [{ setupRequest: options.setupRequest }] } : {}),
    // Without a callback autocannon returns its instance, which is also the result's promise.
  }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  const steadyFrom = options.steadyAfterSeconds === undefined ? undefined : started + options.steadyAfterSeconds * 1000;
  if (steadyFrom !== undefined) {
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      const now = performance.now();
      if (now >= steadyFrom) steadyLatencies.push(responseTime);
      answers.push({ sentAt: now - responseTime, ms: responseTime });
    });
  }
  const result = await instance;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    ok: result['2xx'],
    ...(steadyFrom === undefined ? {} : { steadyP99: Math.round(percentile(steadyLatencies, 0.99)), answers }),
  };
}

/** A load of one of `child`'s paths, and where its CPU went (the server, PostgreSQL, the load generator) a request answered. */
export async function loadWithCpu(child: Child, path: string, body: string, contentType: string, seconds: number): Promise<LoadResult & { cpu: CpuPerRequest }> {
  const before = cpuSnapshot();
  const result = await load({ url: `${child.url}${path}`, body, contentType, seconds });
  return { ...result, cpu: cpuPerRequest(before, cpuSnapshot(), child.process.pid!, result.ok, seconds) };
}

/** Hooks straight into the table, as `formgate hooks create` makes them. */
export async function addHooks(handle: DatabaseHandle, accountId: string, formId: string, targetUrl: string, count: number) {
  for (let i = 0; i < count; i++) {
    await handle.db
      .insertInto('hooks')
      .values({ id: newId('hook'), account_id: accountId, form_id: formId, target_url: targetUrl, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', created_at: new Date().toISOString() })
      .execute();
  }
}

/** A verified recipient in per-submission mode, as `formgate forms update --notify` sets one. */
export async function addRecipient(handle: DatabaseHandle, formId: string, address: string) {
  const now = new Date().toISOString();
  await handle.db
    .insertInto('email_recipients')
    .values({ id: newId('rcp'), form_id: formId, address, state: 'verified', token_hash: null, token_expires_at: null, created_at: now, verified_at: now, bounced_at: null })
    .execute();
}

export async function timeRequests(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    times.push(performance.now() - started);
  }
  return median(times);
}
