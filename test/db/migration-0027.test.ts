import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/features/accounts/password.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createMigrator } from '../../src/platform/db/migrate.js';
import { hashToken } from '../../src/platform/lib/token-hash.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let t: AppUnderTest | undefined;

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
  handle = database.open();
});
afterAll(async () => {
  await t?.close();
  await handle?.close();
  await database?.drop();
});

const API_KEY = 'fgk_' + 'A'.repeat(40);
const SESSION_TOKEN = 'session-token-of-the-old-schema';

describe('migration 0027 (users and memberships)', () => {
  it('makes every account its owner user and keeps keys, sessions, identities and forms working', async () => {
    expect((await (await createMigrator(handle, '0026_audit_log')).migrateToLatest()).error).toBeUndefined();
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const passwordHash = await hashPassword('correct horse battery');
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at, is_admin) values ('acc_1', 'ada@example.com', 'Ada', 'pro', ${passwordHash}, ${now}, 1)`.execute(handle.db);
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at) values ('acc_2', 'bob@example.com', 'Bob', 'free', null, ${now})`.execute(handle.db);
    await sql`insert into api_keys (id, account_id, name, key_hash, key_prefix, created_at) values ('key_1', 'acc_1', 'old', ${hashToken(API_KEY)}, 'fgk_AAAA', ${now})`.execute(handle.db);
    await sql`insert into forms (id, account_id, name, is_active, created_at, updated_at) values ('frm_1', 'acc_1', 'Old contact form', 1, ${now}, ${now})`.execute(handle.db);
    await sql`insert into sessions (id, account_id, csrf_secret, created_at, expires_at) values (${hashToken(SESSION_TOKEN)}, 'acc_1', 'secret', ${now}, ${later})`.execute(handle.db);
    await sql`insert into sso_identities (issuer, subject, account_id, email, created_at, last_sign_in_at) values ('https://idp.example', 'sub-2', 'acc_2', 'bob@example.com', ${now}, ${now})`.execute(handle.db);
    await sql`insert into password_resets (token_hash, account_id, created_at, expires_at) values ('reset-hash', 'acc_2', ${now}, ${later})`.execute(handle.db);
    await sql`insert into email_changes (account_id, new_email, token_hash, created_at, expires_at) values ('acc_1', 'ada@new.example', 'change-hash', ${now}, ${later})`.execute(handle.db);

    const upTo0027 = await (await createMigrator(handle, '0027_users_and_memberships')).migrateToLatest();
    expect(upTo0027.error).toBeUndefined();
    expect(upTo0027.results?.map((r) => r.migrationName)).toEqual(['0027_users_and_memberships']);

    const db = handle.db;
    expect(await db.selectFrom('users').select(['id', 'email', 'display_name', 'password_hash']).orderBy('id').execute()).toEqual([
      { id: 'acc_1', email: 'ada@example.com', display_name: 'Ada', password_hash: passwordHash },
      { id: 'acc_2', email: 'bob@example.com', display_name: 'Bob', password_hash: null },
    ]);
    expect(await db.selectFrom('memberships').select(['account_id', 'user_id', 'role']).orderBy('account_id').execute()).toEqual([
      { account_id: 'acc_1', user_id: 'acc_1', role: 'owner' },
      { account_id: 'acc_2', user_id: 'acc_2', role: 'owner' },
    ]);
    expect(await db.selectFrom('sessions').select(['account_id', 'user_id']).execute()).toEqual([{ account_id: 'acc_1', user_id: 'acc_1' }]);
    expect(await db.selectFrom('sso_identities').select(['subject', 'user_id']).execute()).toEqual([{ subject: 'sub-2', user_id: 'acc_2' }]);
    expect(await db.selectFrom('password_resets').select(['token_hash', 'user_id']).execute()).toEqual([{ token_hash: 'reset-hash', user_id: 'acc_2' }]);
    expect(await db.selectFrom('email_changes').select(['user_id', 'new_email']).execute()).toEqual([{ user_id: 'acc_1', new_email: 'ada@new.example' }]);
    // One membership per (account, user).
    await expect(db.insertInto('memberships').values({ account_id: 'acc_1', user_id: 'acc_1', role: 'admin', created_at: now }).execute()).rejects.toThrow();

    t = await buildTestApp({ database });
    // The API key answers as before: the account, its owner's email and name.
    const me = await t.fetch('/v1/api/me', { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ user: { id: 'acc_1', email: 'ada@example.com', displayName: 'Ada', planId: 'pro' } });
    // The open session still opens the dashboard, as the owner.
    const browser = new DashboardClient(t);
    browser.cookies.set('fg_session', SESSION_TOKEN);
    const forms = await browser.get('/dashboard/forms');
    expect(forms.res.status).toBe(200);
    expect(forms.html).toContain('Old contact form');
    expect(forms.html).toContain('(owner)');
    // The password logs in as before.
    const fresh = new DashboardClient(t);
    await fresh.get('/dashboard/login');
    const login = await fresh.post('/dashboard/login', { email: 'ada@example.com', password: 'correct horse battery' });
    expect(login.res.status).toBe(303);
    expect(login.res.headers.get('location')).toBe('/dashboard/forms');
    expect((await fresh.get('/dashboard/account')).html).toContain('ada@example.com');
  });
});
