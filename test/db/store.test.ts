import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { AccountService } from '../../src/accounts/account.service.js';
import { ApiKeyService } from '../../src/api-keys/api-key.service.js';
import { FormService } from '../../src/forms/form.service.js';
import { AppError } from '../../src/errors.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
let handle: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe(`store on ${testDialect}`, () => {
  it('migrates an empty database, and a second migrate is a no-op', async () => {
    expect(handle.dialect).toBe(testDialect);
    expect(await migrateToLatest(handle)).toEqual(['0001_initial', '0002_hook_fanouts', '0005_email_notifications']);
    expect(await migrateToLatest(handle)).toEqual([]);
    // Other test files' schemas live in the same PostgreSQL database: look at this one only.
    const schema =
      testDialect === 'postgres'
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]!.schema
        : undefined;
    const tables = (await handle.db.introspection.getTables())
      .filter((t) => schema === undefined || t.schema === schema)
      .map((t) => t.name)
      .sort();
    expect(tables).toEqual(
      [
        'accounts', 'api_keys', 'email_attempts', 'email_messages', 'email_recipients', 'forms', 'hook_deliveries', 'hooks',
        'idempotency_keys', 'outbox', 'password_resets', 'sessions', 'submissions',
      ].sort(),
    );
  });

  it('pages submissions newest first with an index range scan', async () => {
    const formId = 'frm_index_probe';
    const query = handle.db
      .selectFrom('submissions')
      .select('id')
      .where('form_id', '=', formId)
      .where((eb) =>
        eb.or([
          eb('created_at', '<', '2026-01-01T00:00:00.000Z'),
          eb.and([eb('created_at', '=', '2026-01-01T00:00:00.000Z'), eb('id', '<', 'sub_x')]),
        ]),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(25)
      .compile();
    // EXPLAIN takes no bind parameters: inline them.
    let index = 0;
    const inlined = query.sql.replace(/\?|\$\d+/g, () => {
      const value = query.parameters[index++];
      return typeof value === 'number' ? String(value) : `'${String(value)}'`;
    });
    const plan =
      testDialect === 'sqlite'
        ? (await sql.raw<{ detail: string }>(`explain query plan ${inlined}`).execute(handle.db)).rows.map((r) => r.detail)
        : await handle.db.transaction().execute(async (trx) => {
            // An empty table would make a sequential scan look as cheap: ask what the index gives.
            await sql`set local enable_seqscan = off`.execute(trx);
            const rows = (await sql.raw<{ 'QUERY PLAN': string }>(`explain ${inlined}`).execute(trx)).rows;
            return rows.map((r) => r['QUERY PLAN']);
          });
    expect(plan.join('\n')).toMatch(/submissions_form_newest_idx/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|Sort/);
  });

  const config = parseConfig({});

  it('creates accounts with the default plan, and refuses a duplicate email', async () => {
    const accounts = new AccountService(handle.db, config);
    const account = await accounts.createAccount({ email: 'Owner@Example.com', displayName: 'Owner' });
    expect(account).toMatchObject({ email: 'owner@example.com', displayName: 'Owner', planId: 'free' });
    expect(account.id).toMatch(/^acc_[0-9A-Za-z]{16}$/);
    expect(account.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    await expect(accounts.createAccount({ email: 'owner@example.com' })).rejects.toMatchObject({
      code: 'validation_failed',
      fieldErrors: { email: 'already registered' },
    });
    expect(await accounts.setPlan('owner@example.com', 'business')).toMatchObject({ planId: 'business' });
    expect((await accounts.getAccount(account.id)).planId).toBe('business');
    await expect(accounts.getAccount('acc_missing')).rejects.toBeInstanceOf(AppError);
  });

  it('stores only a hash of an API key, authenticates it, and revocation is immediate', async () => {
    const accounts = new AccountService(handle.db, config);
    const keys = new ApiKeyService(handle.db);
    const account = await accounts.createAccount({ email: 'keys@example.com' });
    const { key, apiKey } = await keys.createApiKey(account.id, 'ci');
    expect(apiKey).toMatch(/^fgk_[0-9A-Za-z]{40}$/);
    const stored = await handle.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(apiKey.slice(10));
    expect(await keys.authenticate(apiKey)).toEqual({ accountId: account.id, keyId: key.id });
    expect((await keys.listApiKeys(account.id))[0]!.lastUsedAt).not.toBeNull();
    expect(await keys.authenticate(`${apiKey.slice(0, -1)}x`)).toBeUndefined();
    expect(await keys.authenticate('not-a-key')).toBeUndefined();
    await keys.revokeApiKey(key.id);
    expect(await keys.authenticate(apiKey)).toBeUndefined();
  });

  it('creates and updates forms with every setting, listing newest first', async () => {
    const accounts = new AccountService(handle.db, config);
    const forms = new FormService(handle.db);
    const account = await accounts.createAccount({ email: 'forms@example.com' });
    const first = await forms.createForm(account.id, { name: 'First' });
    const second = await forms.createForm(account.id, {
      name: 'Second',
      accessKey: 'k1',
      requireBotCheck: true,
      turnstileSecret: 's1',
      successUrl: 'https://example.com/ok',
      errorUrl: 'https://example.com/err',
      allowedRedirectHosts: ['Example.org'],
    });
    expect(first.id).toMatch(/^frm_[0-9A-Za-z]{16}$/);
    expect(second).toMatchObject({
      isActive: true,
      accessKey: 'k1',
      requireBotCheck: true,
      successUrl: 'https://example.com/ok',
      allowedRedirectHosts: ['example.org'],
    });
    const listed = await forms.listForms(account.id);
    expect(listed.map((f) => f.name)).toEqual(['Second', 'First']);
    const updated = await forms.updateForm(second.id, { isActive: false, accessKey: null, successUrl: null });
    expect(updated).toMatchObject({ isActive: false, accessKey: null, successUrl: null, errorUrl: 'https://example.com/err' });
    await expect(forms.updateForm(second.id, { successUrl: 'javascript:alert(1)' })).rejects.toMatchObject({
      code: 'validation_failed',
      fieldErrors: { successUrl: expect.any(String) },
    });
    const other = await accounts.createAccount({ email: 'other@example.com' });
    await expect(forms.getFormOfAccount(other.id, second.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
