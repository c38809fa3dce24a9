import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createMigrator } from '../../src/platform/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
let handle: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
  handle = database.open();
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

const admins = async () =>
  (await sql<{ id: string }>`select id from users where is_admin = 1 order by id`.execute(handle.db)).rows.map((r) => r.id);

describe('migration 0030 (the instance admin is a user)', () => {
  it('makes the current owner of the admin account the admin user, and goes back down', async () => {
    expect((await (await createMigrator(handle, '0029_outbox_attempts')).migrateToLatest()).error).toBeUndefined();
    const now = new Date().toISOString();
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at, is_admin) values ('acc_1', 'ada@example.com', 'Ada', 'business', null, ${now}, 1)`.execute(handle.db);
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at) values ('acc_2', 'bob@example.com', 'Bob', 'free', null, ${now})`.execute(handle.db);
    for (const [id, email] of [['acc_1', 'ada@example.com'], ['acc_2', 'bob@example.com'], ['usr_3', 'cy@example.com']]) {
      await sql`insert into users (id, email, display_name, password_hash, created_at) values (${id}, ${email}, ${id}, null, ${now})`.execute(handle.db);
    }
    // Ada handed her account to Cy before the upgrade: Cy owns the admin account now.
    await sql`insert into memberships (account_id, user_id, role, created_at) values ('acc_1', 'acc_1', 'admin', ${now}), ('acc_1', 'usr_3', 'owner', ${now}), ('acc_2', 'acc_2', 'owner', ${now})`.execute(handle.db);

    const up = await (await createMigrator(handle, '0030_instance_admin_is_a_user')).migrateToLatest();
    expect(up.error).toBeUndefined();
    expect(await admins()).toEqual(['usr_3']);
    const columns = (await handle.db.introspection.getTables()).find((table) => table.name === 'accounts')!.columns.map((c) => c.name);
    expect(columns).not.toContain('is_admin');

    expect((await (await createMigrator(handle, '0030_instance_admin_is_a_user')).migrateDown()).error).toBeUndefined();
    const flagged = await sql<{ id: string }>`select id from accounts where is_admin = 1`.execute(handle.db);
    expect(flagged.rows.map((r) => r.id)).toEqual(['acc_1']);
  });
});
