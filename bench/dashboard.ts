// Dashboard scenarios of `npm run bench`: search at 1,000,000 submissions, the forms list with
// 100 forms of 10,000 submissions, and what the search index and counters cost each insert.
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { AccountService } from '../src/features/accounts/account.service.js';
import { SessionService } from '../src/features/accounts/session.service.js';
import { parseConfig } from '../src/platform/config.js';
import { createDatabase } from '../src/platform/db/database.js';
import { insertSubmissionRows } from '../src/features/submit/submission.repository.js';
import { SEEDING_BUSY_TIMEOUT_MS, benchAccount, freshDatabase, indexSeededSqliteRows, recountPostgresForms, recountSqliteForms, type BenchDialect, type BenchRow } from './lib.js';
import { startFormgate } from './servers.js';
import { percentile } from './stats.js';

const DAY_MS = 86_400_000;
export const COMMON_WORD = 'orange'; // every second submission
export const RARE_WORD = 'quetzal'; // one submission in 10,000 (in the inbox)
export const ABSENT_WORD = 'zyzzyva'; // in none

/** Median and p99 of n sequential GETs (after 5 warm-up requests). */
async function timeGets(url: string, cookie: string, n: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n + 5; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    if (i >= 5) times.push(performance.now() - started);
  }
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

export async function owner(url: string, formCount: number) {
  const { handle, accountId, forms } = await benchAccount(url, 2);
  const formIds: string[] = [];
  for (let i = 0; i < formCount; i++) formIds.push((await forms.createForm(accountId, { name: `Form ${i + 1}` })).id);
  const accounts = new AccountService(handle.db, parseConfig({}));
  const user = await accounts.findUserByEmail((await accounts.getAccount(accountId)).email);
  const token = await new SessionService(handle.db).startSession(user!.id, accountId);
  await handle.close();
  return { formIds, cookie: `fg_session=${token}` };
}

/** Rows spread over the last 60 days, then the counters recomputed from them (as the submit path keeps them). */
export async function seed(db: BenchDialect, url: string, formIds: string[], perForm: number): Promise<number> {
  const started = Date.now();
  const base = Date.now() - 60 * DAY_MS;
  const step = (60 * DAY_MS) / (perForm * formIds.length);
  if (db === 'sqlite') {
    const sqlite = new SqliteDatabase(url.slice('sqlite:'.length), { timeout: SEEDING_BUSY_TIMEOUT_MS });
    sqlite.pragma('journal_mode = WAL');
    const statement = sqlite.prepare(
      "insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer) values (?, ?, ?, 'delivered', ?, ?, '203.0.113.9', 'XX', 'bench', '')",
    );
    let g = 0;
    for (const formId of formIds) {
      sqlite.transaction(() => {
        for (let i = 0; i < perForm; i++, g++) {
          const message = `Hello ${g % 2 === 0 ? COMMON_WORD : 'plain'} message number ${g}${g % 10_000 === 1 ? ` ${RARE_WORD}` : ''}`;
          statement.run(`sub_${String(g).padStart(16, '0')}`, formId, new Date(base + g * step).toISOString(), g % 10 === 0 ? 1 : 0, JSON.stringify({ name: `Person ${g}`, email: `user${g}@example.com`, message }));
        }
      })();
    }
    recountSqliteForms(sqlite);
    sqlite.close();
    await indexSeededSqliteRows(url);
  } else {
    const handle = createDatabase(url, { poolSize: 1 });
    // In statements of at most 50,000 rows: each stays well under the server's query timeout.
    const CHUNK = 50_000;
    for (const [f, formId] of formIds.entries()) {
      for (let from = f * perForm; from < (f + 1) * perForm; from += CHUNK) {
        const to = Math.min((f + 1) * perForm, from + CHUNK) - 1;
        await sql`insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer)
          select 'sub_' || lpad(g::text, 16, '0'), ${formId},
            to_char(timestamp 'epoch' + (${base}::bigint + (g * ${step})::bigint) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'delivered', case when g % 10 = 0 then 1 else 0 end,
            json_build_object('name', 'Person ' || g, 'email', 'user' || g || '@example.com',
              'message', 'Hello ' || case when g % 2 = 0 then ${COMMON_WORD} else 'plain' end || ' message number ' || g || case when g % 10000 = 1 then ${` ${RARE_WORD}`} else '' end)::text,
            '203.0.113.9', 'XX', 'bench', ''
          from generate_series(${from}::bigint, ${to}::bigint) g`.execute(handle.db);
      }
    }
    await recountPostgresForms(handle.db);
    await sql`vacuum analyze submissions`.execute(handle.db);
    await handle.close();
  }
  return (Date.now() - started) / 1000;
}

/** Microseconds per submission row in transactions of `batch` rows, with the 0006 triggers and index and without. */
async function insertCost(db: BenchDialect, batch: number): Promise<{ withTriggers: number; without: number }> {
  const measure = async (dropThem: boolean) => {
    const database = await freshDatabase(db);
    const { formIds } = await owner(database.url, 1);
    const handle = createDatabase(database.url, { poolSize: 1 });
    if (dropThem) {
      // Since migration 0012 SQLite has no insert trigger left (the search indexer runs after the
      // commit), so there both sides measure the same insert.
      const names = db === 'sqlite' ? ['submissions_after_insert', 'submissions_after_delete', 'submissions_after_spam_change'] : [];
      for (const name of names) await sql`drop trigger if exists ${sql.raw(name)}`.execute(handle.db);
      if (db === 'postgres') {
        // Since migration 0015 the inserting code counts on PostgreSQL too: only the delete and spam-change triggers are left.
        for (const name of ['submissions_count_deleted', 'submissions_count_spam_changed']) await sql`drop trigger ${sql.raw(name)} on submissions`.execute(handle.db);
        await sql`drop index submissions_search_idx`.execute(handle.db);
      }
    }
    const n = 3000;
    let g = 0;
    const row = () => ({ id: `sub_${String(g).padStart(16, '0')}`, form_id: formIds[0]!, created_at: new Date().toISOString(), status: 'delivered', is_spam: 0, payload: JSON.stringify({ name: `Person ${g}`, email: `user${g}@example.com`, message: `Hello ${COMMON_WORD} message number ${g++}` }), ip: '203.0.113.9', country: 'XX', user_agent: 'bench', referer: '' });
    const started = performance.now();
    for (let i = 0; i < n / batch; i++) {
      await handle.db.transaction().execute(async (trx) => {
        await insertSubmissionRows(trx, Array.from({ length: batch }, row));
      });
    }
    const micros = ((performance.now() - started) * 1000) / n;
    await handle.close();
    await database.drop();
    return micros;
  };
  return { withTriggers: await measure(false), without: await measure(true) };
}

export async function searchScenario(db: BenchDialect, rowsCount: number): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  // One row per transaction (an idle server) and 50 (the group-commit writer under load).
  for (const batch of [1, 50]) {
    const cost = await insertCost(db, batch);
    out.push({ db, scenario: 'search index + counters on insert', metric: `µs per submission, ${batch === 1 ? 'one row per transaction' : '50-row transactions'}, with vs without (migration 0006${db === 'sqlite' ? '; SQLite indexes after the commit since 0012' : '; counted on both sides since 0015: the difference is the search index'})`, value: cost.withTriggers.toFixed(0), reference: cost.without.toFixed(0), ratio: (cost.withTriggers / cost.without).toFixed(2) });
  }
  const database = await freshDatabase(db);
  try {
    const { formIds, cookie } = await owner(database.url, 1);
    const seconds = await seed(db, database.url, formIds, rowsCount);
    const server = await startFormgate(database.url);
    try {
      const base = `${server.url}/dashboard/forms/${formIds[0]}/submissions`;
      const plain = await timeGets(base, cookie, 100);
      for (const [label, word] of [['rare', RARE_WORD], ['common', COMMON_WORD], ['absent', ABSENT_WORD]] as const) {
        const first = await timeGets(`${base}?q=${word}`, cookie, 100);
        out.push({ db, scenario: `search (${rowsCount.toLocaleString('en')} rows, seeded in ${seconds.toFixed(0)} s)`, metric: `${label} word "${word}": p50 / p99 ms (vs plain list p50 / p99)`, value: `${first.p50.toFixed(1)} / ${first.p99.toFixed(1)}`, reference: `${plain.p50.toFixed(1)} / ${plain.p99.toFixed(1)}`, ratio: (first.p99 / plain.p99).toFixed(2), target: 'p99 ≤ 200 ms', pass: first.p99 <= 200 });
      }
      const ranged = await timeGets(`${base}?q=${COMMON_WORD}&from=${new Date(Date.now() - 50 * DAY_MS).toISOString().slice(0, 10)}&to=${new Date(Date.now() - 40 * DAY_MS).toISOString().slice(0, 10)}&spam=1`, cookie, 50);
      out.push({ db, scenario: 'search', metric: 'common word, spam only, a 10-day range 40 days back: p50 / p99 ms', value: `${ranged.p50.toFixed(1)} / ${ranged.p99.toFixed(1)}`, reference: '—', ratio: '—', target: 'p99 ≤ 200 ms', pass: ranged.p99 <= 200 });
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
  return out;
}

export async function formsListScenario(db: BenchDialect): Promise<BenchRow[]> {
  const database = await freshDatabase(db);
  try {
    const { formIds, cookie } = await owner(database.url, 100);
    const seconds = await seed(db, database.url, formIds, 10_000);
    const server = await startFormgate(database.url);
    try {
      const list = await timeGets(`${server.url}/dashboard/forms`, cookie, 200);
      const chart = await timeGets(`${server.url}/dashboard/forms/${formIds[0]}/submissions`, cookie, 100);
      return [
        { db, scenario: `forms list (100 forms × 10,000 rows, seeded in ${seconds.toFixed(0)} s)`, metric: 'GET /dashboard/forms p50 / p99 ms', value: `${list.p50.toFixed(1)} / ${list.p99.toFixed(1)}`, reference: '—', ratio: '—', target: 'p99 ≤ 100 ms', pass: list.p99 <= 100 },
        { db, scenario: 'forms list', metric: 'a form\'s submissions page with its 30-day chart p50 / p99 ms', value: `${chart.p50.toFixed(1)} / ${chart.p99.toFixed(1)}`, reference: '—', ratio: '—' },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}
