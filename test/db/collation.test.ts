import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { randomBase62 } from '../../src/lib/ids.js';
import { insertSubmissionRows } from '../../src/submissions/submission.repository.js';
import { createTestDatabase, postgresAdminUrl, testDialect, type TestDatabase } from '../helpers/database.js';
import { createOwner, newSubmissionRow, servicesFor } from '../helpers/factories.js';

// Row order must be bytewise on both databases: a PostgreSQL whose default collation is
// linguistic (ICU en-US here) sorts `sub_a` before `sub_B` and all but ignores punctuation, so
// without COLLATE "C" on the ordering columns ties came back in another order than on SQLite.

const SAME_MS = '2026-05-01T00:00:00.000Z';
// Differ only in case (valid base62 IDs, so they page with cursors too).
const caseIds = ['sub_a', 'sub_A', 'sub_b', 'sub_B', 'sub_0', 'sub_Z', 'sub_z', 'sub_aB', 'sub_Ab', 'sub_AB', 'sub_ab'];
// Differ only in punctuation.
const punctuationIds = ['sub_c-d', 'sub_c_d', 'sub_cd', 'sub_c.d', 'sub_c~d', 'sub_-cd', 'sub__cd', 'sub_C-d'];

/** Newest first, ties by ID descending, both compared by UTF-16 code unit = byte for ASCII. */
function expectedOrder(rows: Array<{ id: string; createdAt: string }>): string[] {
  return [...rows]
    .sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1))
    .map((r) => r.id);
}

async function checkOrdering(handle: DatabaseHandle): Promise<void> {
  const services = servicesFor(handle);
  const owner = await createOwner(services);

  // Case: a tie in one millisecond plus neighbours either side, walked in pages of 3 so the
  // keyset comparison (created_at, id) < (…) runs under the same collation as the ORDER BY.
  const paged = await services.forms.createForm(owner.account.id, { name: 'case' });
  const caseRows = [
    ...caseIds.map((id) => ({ id, createdAt: SAME_MS })),
    { id: 'sub_Q', createdAt: '2026-05-01T00:00:00.001Z' },
    { id: 'sub_q', createdAt: '2026-04-30T23:59:59.999Z' },
  ];
  await insertSubmissionRows(handle.db, caseRows.map((r) => newSubmissionRow(paged.id, { id: r.id, created_at: r.createdAt })));
  const walked: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await services.submissionQueries.listSubmissions(owner.account.id, paged.id, { limit: 3, ...(cursor ? { cursor } : {}) });
    walked.push(...page.submissions.map((s) => s.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(walked).toEqual(expectedOrder(caseRows));
  expect(walked.slice(1, 1 + caseIds.length)).toEqual(['sub_z', 'sub_b', 'sub_ab', 'sub_aB', 'sub_a', 'sub_Z', 'sub_B', 'sub_Ab', 'sub_AB', 'sub_A', 'sub_0']);

  // Punctuation: one page.
  const punctuated = await services.forms.createForm(owner.account.id, { name: 'punctuation' });
  await insertSubmissionRows(handle.db, punctuationIds.map((id) => newSubmissionRow(punctuated.id, { id, created_at: SAME_MS })));
  const page = await services.submissionQueries.listSubmissions(owner.account.id, punctuated.id, { limit: 100 });
  expect(page.submissions.map((s) => s.id)).toEqual(expectedOrder(punctuationIds.map((id) => ({ id, createdAt: SAME_MS }))));
}

describe('ordering is bytewise on both databases', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = database.open();
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('ties in one millisecond and IDs differing only in case or punctuation come back in byte order', async () => {
    await checkOrdering(handle);
  });

  it.runIf(testDialect === 'postgres')('the ordering columns are COLLATE "C" on PostgreSQL', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string; collation_name: string | null }>`
      select table_name, column_name, collation_name from information_schema.columns
      where table_schema = current_schema() and column_name in ('id', 'created_at')
        and table_name in ('submissions', 'forms', 'hooks', 'api_keys', 'hook_deliveries')`.execute(handle.db);
    expect(rows).toHaveLength(10);
    for (const row of rows) expect([row.table_name, row.column_name, row.collation_name]).toEqual([row.table_name, row.column_name, 'C']);
  });
});

describe.runIf(testDialect === 'postgres')('on a PostgreSQL database whose default collation is ICU en-US', () => {
  const name = `fg_icu_${randomBase62(10).toLowerCase()}`;
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  let handle: DatabaseHandle | undefined;

  async function admin(statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: postgresAdminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    await admin(`create database ${name} template template0 locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`);
    handle = createDatabase(url.href, { poolSize: 2 });
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await handle?.close();
    await admin(`drop database if exists ${name}`);
  });

  it('gives the same order as SQLite', async () => {
    await checkOrdering(handle!);
  });
});
