import { describe, expect, it } from 'vitest';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';

const file = emptyDatabaseForFile();

/** Raw rows: the schema before this migration is not today's schema type. */
const db = () => file.handle.db as unknown as import('kysely').Kysely<any>;

describe('migration 0031 (confirmed addresses)', () => {
  it('confirms users with a single sign-on identity or without a password, and no password user otherwise', async () => {
    await migrateToLatest(file.handle);
    expect((await (await createMigrator(file.handle)).migrateTo('0029_outbox_attempts')).error).toBeUndefined();
    const created = '2026-03-01T10:00:00.000Z';
    const user = (id: string, passwordHash: string | null) => ({ id, email: `${id}@example.com`, display_name: id, password_hash: passwordHash, created_at: created });
    await db()
      .insertInto('users')
      .values([user('signed_up', 'scrypt$hash'), user('with_sso', 'scrypt$hash'), user('sso_only', null)])
      .execute();
    await db()
      .insertInto('sso_identities')
      .values({ issuer: 'https://idp.example', subject: 'sub-1', user_id: 'with_sso', email: 'with_sso@example.com', created_at: created, last_sign_in_at: created })
      .execute();

    expect(await migrateToLatest(file.handle)).toContain('0031_email_confirmation');
    const rows = await file.handle.db.selectFrom('users').select(['id', 'email_confirmed_at']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'signed_up', email_confirmed_at: null },
      { id: 'sso_only', email_confirmed_at: created },
      { id: 'with_sso', email_confirmed_at: created },
    ]);
  });
});
