import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';

const file = emptyDatabaseForFile();

describe('migration 0021 (email changes, account time zones)', () => {
  it('keeps existing accounts (no zone yet), holds one email change per account, and goes back down', async () => {
    expect((await (await createMigrator(file.handle, '0018_counters_hours_before_totals')).migrateToLatest()).error).toBeUndefined();
    const now = new Date().toISOString();
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at) values ('acc_1', 'a@example.com', 'A', 'pro', null, ${now})`.execute(file.handle.db);
    const migrator = await createMigrator(file.handle, '0021_email_changes_and_time_zones');
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const account = await file.handle.db.selectFrom('accounts').select(['id', 'time_zone']).executeTakeFirstOrThrow();
    expect(account).toEqual({ id: 'acc_1', time_zone: null });
    const change = { account_id: 'acc_1', new_email: 'b@example.com', token_hash: 'h1', created_at: now, expires_at: now };
    // The table as 0021 made it (0027 gives it to users).
    const db = file.handle.db as unknown as Kysely<any>;
    await db.insertInto('email_changes').values(change).execute();
    await expect(db.insertInto('email_changes').values({ ...change, token_hash: 'h2' }).execute()).rejects.toThrow();
    // Deleting the account takes its pending change with it.
    await file.handle.db.deleteFrom('accounts').where('id', '=', 'acc_1').execute();
    expect(await file.handle.db.selectFrom('email_changes').selectAll().execute()).toEqual([]);

    expect((await migrator.migrateDown()).error).toBeUndefined();
    await expect(sql`select time_zone from accounts`.execute(file.handle.db)).rejects.toThrow();
    await expect(sql`select 1 from email_changes`.execute(file.handle.db)).rejects.toThrow();
  });
});
