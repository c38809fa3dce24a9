import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { Account } from '../../src/features/accounts/account.types.js';
import { parseConfig } from '../../src/platform/config.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import type { NewSubmissionRow } from '../../src/platform/db/schema.js';
import type { FormSettingsInput } from '../../src/features/forms/form.service.js';
import type { Form } from '../../src/features/forms/form.types.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { createServices, type Services } from '../../src/services.js';
import { insertSubmissionRows } from '../../src/features/submit/submission.repository.js';

/**
 * The domain services over a database a test opened itself (no HTTP app, nothing started), so the
 * factories below work there too.
 */
export function servicesFor(handle: DatabaseHandle): Services {
  return createServices(handle, parseConfig({ LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
}

export async function createAccount(
  services: Services,
  overrides: Partial<{ email: string; displayName: string; planId: Account['planId']; password: string; emailConfirmed: boolean }> = {},
): Promise<Account> {
  return services.accounts.createAccount({
    email: overrides.email ?? `user-${randomBase62(8).toLowerCase()}@example.com`,
    displayName: overrides.displayName ?? 'Test User',
    planId: overrides.planId ?? 'free',
    password: overrides.password,
    // As a dashboard sign-up: single sign-on does not link to the address unless a test says so.
    emailConfirmed: overrides.emailConfirmed ?? false,
  });
}

export async function createApiKey(services: Services, accountId: string): Promise<string> {
  return (await services.apiKeys.createApiKey(accountId, 'test')).apiKey;
}

export async function createForm(
  services: Services,
  accountId: string,
  settings: FormSettingsInput = {},
): Promise<Form> {
  return services.forms.createForm(accountId, { name: 'Contact', ...settings });
}

/** An account with a key and a form: the starting point of most API tests. */
export async function createOwner(
  services: Services,
  options: { planId?: Account['planId']; form?: FormSettingsInput } = {},
): Promise<{ account: Account; apiKey: string; form: Form; auth: { authorization: string } }> {
  const account = await createAccount(services, { planId: options.planId ?? 'pro' });
  const apiKey = await createApiKey(services, account.id);
  const form = await createForm(services, account.id, options.form);
  return { account, apiKey, form, auth: { authorization: `Bearer ${apiKey}` } };
}

/**
 * Stores submissions straight into the database (faster than HTTP, and lets a test choose
 * created_at, e.g. many rows in one millisecond). Returns their IDs in insertion order.
 */
export async function insertSubmissions(
  services: Services,
  formId: string,
  items: Array<{ createdAt: string; payload?: Record<string, unknown>; isSpam?: boolean }>,
): Promise<string[]> {
  const rows = items.map((item) =>
    newSubmissionRow(formId, { created_at: item.createdAt, is_spam: item.isSpam ? 1 : 0, payload: JSON.stringify(item.payload ?? {}) }),
  );
  await services.handle.db.transaction().execute((trx) => insertSubmissionRows(trx, rows));
  return rows.map((r) => r.id);
}

/** insertSubmissions of rows created now, each `{ message }`: the search tests' rows. Returns their IDs. */
export function insertMessages(services: Services, formId: string, ...messages: string[]): Promise<string[]> {
  const createdAt = new Date().toISOString();
  return insertSubmissions(services, formId, messages.map((message) => ({ createdAt, payload: { message } })));
}

/** A submissions row with plausible values, for tests that write rows directly. */
export function newSubmissionRow(formId: string, overrides: Partial<NewSubmissionRow> = {}): NewSubmissionRow {
  return {
    id: `sub_${randomBase62(16)}`,
    form_id: formId,
    created_at: new Date().toISOString(),
    status: 'delivered',
    is_spam: 0,
    payload: '{}',
    ip: '203.0.113.1',
    country: 'XX',
    user_agent: 'test',
    referer: '',
    ...overrides,
  };
}

/**
 * Gives a row a fixed creation time, so "newest first" tests do not depend on whether two rows
 * were created in the same millisecond (a tie is then broken by random IDs).
 */
export async function setCreatedAt(
  services: Services,
  table: 'forms' | 'hooks' | 'api_keys' | 'submissions',
  id: string,
  createdAt: string,
): Promise<void> {
  await services.handle.db.updateTable(table).set({ created_at: createdAt }).where('id', '=', id).execute();
}

export interface MigratedDatabase {
  database: TestDatabase;
  handle: DatabaseHandle;
  services: Services;
}

/**
 * A private migrated database for the calling test file, with the domain services over it
 * (nothing started): opened before its tests, handed to `opened`, closed and dropped after them.
 */
export function useMigratedDatabase(opened: (db: MigratedDatabase) => void): void {
  let current: MigratedDatabase | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase();
    const handle = database.open();
    await migrateToLatest(handle);
    current = { database, handle, services: servicesFor(handle) };
    opened(current);
  });
  afterAll(async () => {
    await current?.handle.close();
    await current?.database.drop();
  });
}
