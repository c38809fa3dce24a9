import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createMigrator } from '../../src/platform/db/migrate.js';
import { useMigratedDatabase } from '../helpers/factories.js';

// PostgreSQL only (migration 0016 does nothing on SQLite).

let handle: DatabaseHandle;
useMigratedDatabase((opened) => ({ handle } = opened));

/**
 * A word search planned in parallel, with the function evaluated in the workers: the planner's
 * parallel costs set to nothing and the other scans off, as a large table makes it choose (there
 * through a lossy bitmap's recheck; a parallel sequential scan is the same evaluation, made certain).
 */
const parallelSearch = () =>
  handle.db.transaction().execute(async (trx) => {
    for (const setting of ['parallel_setup_cost = 0', 'parallel_tuple_cost = 0', 'min_parallel_table_scan_size = 0', 'enable_bitmapscan = off', 'enable_indexscan = off']) {
      await sql.raw(`set local ${setting}`).execute(trx);
    }
    const plan = await sql<{ 'QUERY PLAN': string }>`explain select count(*) from submissions where formgate_search_vector(payload) @@ to_tsquery('simple', 'quince:*')`.execute(trx);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from submissions where formgate_search_vector(payload) @@ to_tsquery('simple', 'quince:*')`.execute(trx);
    return { plan: plan.rows.map((r) => r['QUERY PLAN']).join('\n'), found: rows[0]!.n };
  });

describe('migration 0016 (the search vector function is parallel restricted; PostgreSQL)', () => {
  it('a search the planner runs in parallel no longer fails in its workers; down brings the failure back', async () => {
    await sql`insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer)
      select 'sub_16_' || g, 'frm_16', '2026-11-27T09:00:00.000Z', 'delivered', 0, '{"message":"quince ' || g || '"}', '', 'XX', '', ''
      from generate_series(1, 2000) g`.execute(handle.db);

    const after = await parallelSearch();
    expect(after.found).toBe(2000);
    expect(after.plan).toMatch(/Filter: \(formgate_search_vector/);
    expect(after.plan).not.toMatch(/Parallel Seq Scan/);

    expect((await (await createMigrator(handle)).migrateTo('0015_postgres_submit_counts')).error).toBeUndefined();
    const before = parallelSearch();
    await expect(before).rejects.toThrow(/cannot start subtransactions during a parallel operation/);

    expect((await (await createMigrator(handle)).migrateToLatest()).error).toBeUndefined();
    expect((await parallelSearch()).found).toBe(2000);
  });
});
