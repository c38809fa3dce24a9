import type { Account } from '../../src/accounts/account.types.js';
import type { FormSettingsInput } from '../../src/forms/form.service.js';
import type { Form } from '../../src/forms/form.types.js';
import { randomBase62 } from '../../src/lib/ids.js';
import type { Services } from '../../src/services.js';

export async function createAccount(
  services: Services,
  overrides: Partial<{ email: string; displayName: string; planId: Account['planId']; password: string }> = {},
): Promise<Account> {
  return services.accounts.createAccount({
    email: overrides.email ?? `user-${randomBase62(8).toLowerCase()}@example.com`,
    displayName: overrides.displayName ?? 'Test User',
    planId: overrides.planId ?? 'free',
    password: overrides.password,
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
  const rows = items.map((item) => ({
    id: `sub_${randomBase62(16)}`,
    form_id: formId,
    created_at: item.createdAt,
    status: 'delivered',
    is_spam: item.isSpam ? 1 : 0,
    payload: JSON.stringify(item.payload ?? {}),
    ip: '203.0.113.1',
    country: 'XX',
    user_agent: 'test',
    referer: '',
  }));
  for (let i = 0; i < rows.length; i += 200) {
    await services.handle.db.insertInto('submissions').values(rows.slice(i, i + 200)).execute();
  }
  return rows.map((r) => r.id);
}
