import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createMigrator } from '../../src/platform/db/migrate.js';
import { useMigratedDatabase } from '../helpers/factories.js';

// PostgreSQL only (migration 0015 does nothing on SQLite).

let handle: DatabaseHandle;
useMigratedDatabase((opened) => ({ handle } = opened));

const insertSubmission = (id: string, formId: string) =>
  sql`insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer)
    values (${id}, ${formId}, '2026-11-27T06:30:00.000Z', 'delivered', 0, '{}', '', 'XX', '', '')`.execute(handle.db);
const formCount = async (formId: string) =>
  Number((await sql<{ n: string | null }>`select sum(inbox) as n from form_counts where form_id = ${formId}`.execute(handle.db)).rows[0]?.n ?? 0);

describe('migration 0015 (the submit statement counts and locks forms; PostgreSQL)', () => {
  it('up: an insert neither counts itself nor checks its form, and deleting a form deletes its submissions', async () => {
    const now = new Date().toISOString();
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at) values ('acc_15', 'a15@example.com', 'A', 'pro', null, ${now})`.execute(handle.db);
    await sql`insert into forms (id, account_id, name, is_active, access_key, success_url, error_url, allowed_redirect_hosts, created_at, updated_at)
      values ('frm_15', 'acc_15', 'F', 1, null, null, null, '[]', ${now}, ${now})`.execute(handle.db);
    await insertSubmission('sub_15a', 'frm_15');
    expect(await formCount('frm_15')).toBe(0); // the inserting code counts (insertSubmissionRows, the submit statement)
    await insertSubmission('sub_15orphan', 'frm_none'); // no foreign key: the submit statement locks forms itself
    await sql`delete from submissions where id = 'sub_15orphan'`.execute(handle.db);
    await sql`delete from forms where id = 'frm_15'`.execute(handle.db);
    expect((await sql`select id from submissions where form_id = 'frm_15'`.execute(handle.db)).rows).toEqual([]);
  });

  it('down: the foreign key and the counting trigger are back', async () => {
    expect((await (await createMigrator(handle)).migrateTo('0015_postgres_submit_counts')).error).toBeUndefined(); // the later ones down first
    const migrator = await createMigrator(handle, '0015_postgres_submit_counts');
    const down = await migrator.migrateDown();
    expect(down.error).toBeUndefined();
    expect(down.results?.map((r) => r.migrationName)).toEqual(['0015_postgres_submit_counts']);
    const now = new Date().toISOString();
    await sql`insert into forms (id, account_id, name, is_active, access_key, success_url, error_url, allowed_redirect_hosts, created_at, updated_at)
      values ('frm_15b', 'acc_15', 'F', 1, null, null, null, '[]', ${now}, ${now})`.execute(handle.db);
    await insertSubmission('sub_15b', 'frm_15b');
    expect(await formCount('frm_15b')).toBe(1);
    await expect(insertSubmission('sub_15c', 'frm_none')).rejects.toMatchObject({ code: '23503' });
    await sql`delete from forms where id = 'frm_15b'`.execute(handle.db);
    expect((await sql`select id from submissions where form_id = 'frm_15b'`.execute(handle.db)).rows).toEqual([]);
    expect((await (await createMigrator(handle)).migrateToLatest()).error).toBeUndefined();
  });
});
