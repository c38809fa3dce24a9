import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator, currentSchema } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';

const file = emptyDatabaseForFile();

type Counts = Array<{ key: string; inbox: number; spam: number }>;
async function counts(db: Kysely<any>, table: string, column: string): Promise<Counts> {
  const rows = await sql<{ key: string; inbox: string | number; spam: string | number }>`select ${sql.ref(column)} as key, sum(inbox) as inbox, sum(spam) as spam
    from ${sql.table(table)} where form_id = 'frm_1' group by ${sql.ref(column)} order by ${sql.ref(column)}`.execute(db);
  return rows.rows.map((r) => ({ key: r.key, inbox: Number(r.inbox), spam: Number(r.spam) }));
}

describe('migration 0013 (counters per UTC hour, for the viewer\'s days)', () => {
  it('fills the hourly counters from the rows, keeps them on delete and spam change, and goes back down to days', async () => {
    expect((await (await createMigrator(file.handle, '0012_search_indexed_after_commit')).migrateToLatest()).error).toBeUndefined();
    const now = new Date().toISOString();
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at) values ('acc_1', 'a@example.com', 'A', 'pro', null, ${now})`.execute(file.handle.db);
    await sql`insert into forms (id, account_id, name, is_active, access_key, success_url, error_url, allowed_redirect_hosts, created_at, updated_at)
      values ('frm_1', 'acc_1', 'F', 1, null, null, null, '[]', ${now}, ${now})`.execute(file.handle.db);
    const rows: Array<[string, string, number]> = [
      ['sub_1', '2026-11-23T18:14:00.000Z', 0],
      ['sub_2', '2026-11-23T18:45:00.000Z', 1],
      ['sub_3', '2026-11-24T03:04:00.000Z', 0],
      ['sub_4', '2026-11-24T03:59:59.999Z', 0],
    ];
    for (const [id, createdAt, spam] of rows) {
      await sql`insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer)
        values (${id}, 'frm_1', ${createdAt}, 'delivered', ${spam}, '{"m":"x"}', '', 'XX', '', '')`.execute(file.handle.db);
    }

    const upTo0013 = await (await createMigrator(file.handle, '0013_hourly_counts')).migrateToLatest();
    expect(upTo0013.error).toBeUndefined();
    expect(upTo0013.results?.map((r) => r.migrationName)).toEqual(['0013_hourly_counts']);
    expect(await counts(file.handle.db, 'form_hourly_counts', 'hour')).toEqual([
      { key: '2026-11-23T18', inbox: 1, spam: 1 },
      { key: '2026-11-24T03', inbox: 2, spam: 0 },
    ]);
    await sql`update submissions set is_spam = 1 where id = 'sub_3'`.execute(file.handle.db);
    await sql`delete from submissions where id = 'sub_1'`.execute(file.handle.db);
    expect(await counts(file.handle.db, 'form_hourly_counts', 'hour')).toEqual([
      { key: '2026-11-23T18', inbox: 0, spam: 1 },
      { key: '2026-11-24T03', inbox: 1, spam: 1 },
    ]);

    const all = await createMigrator(file.handle, '0013_hourly_counts');
    expect((await all.migrateDown()).error).toBeUndefined();
    expect(await counts(file.handle.db, 'form_daily_counts', 'day')).toEqual([
      { key: '2026-11-23', inbox: 0, spam: 1 },
      { key: '2026-11-24', inbox: 1, spam: 1 },
    ]);
    // The release before keeps its day counters on delete again.
    await sql`delete from submissions where id = 'sub_4'`.execute(file.handle.db);
    expect(await counts(file.handle.db, 'form_daily_counts', 'day')).toEqual([
      { key: '2026-11-23', inbox: 0, spam: 1 },
      { key: '2026-11-24', inbox: 0, spam: 1 },
    ]);
    // Introspection lists every schema of the database: the one the tables were created in only.
    const schema = await currentSchema(file.handle);
    const tables = (await file.handle.db.introspection.getTables()).filter((t) => schema === undefined || t.schema === schema);
    expect(tables.map((t) => t.name)).toContain('form_daily_counts');
    expect(tables.map((t) => t.name)).not.toContain('form_hourly_counts');
  });
});
