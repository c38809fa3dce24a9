import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { currentSchema, migrateToLatest } from '../../src/platform/db/migrate.js';
import { AccountService } from '../../src/features/accounts/account.service.js';
import { ApiKeyService } from '../../src/features/api-keys/api-key.service.js';
import { FormService } from '../../src/features/forms/form.service.js';
import { AppError } from '../../src/platform/errors.js';
import { emptyDatabaseForFile, testDialect, type TestDatabase } from '../helpers/database.js';
import { createOwner, insertSubmissions, servicesFor, setCreatedAt } from '../helpers/factories.js';

const file = emptyDatabaseForFile();

/** The plan of a compiled query, run with its own bind parameters. */
async function explain(query: CompiledQuery): Promise<string> {
  if (testDialect === 'sqlite') {
    const { rows } = await file.handle.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    return rows.map((r) => r.detail).join('\n');
  }
  return file.handle.db.transaction().execute(async (trx) => {
    // A small table would make a sequential scan look as cheap: ask what the index gives.
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

describe(`store on ${testDialect}`, () => {
  it('migrates an empty database, and a second migrate is a no-op', async () => {
    expect(file.handle.dialect).toBe(testDialect);
    expect(await migrateToLatest(file.handle)).toEqual(['0001_initial', '0002_hook_fanouts', '0003_collation_and_secrets', '0004_spam_and_lifecycle', '0005_email_notifications', '0006_dashboard_search', '0007_counters_per_batch', '0008_auto_reply_and_pages', '0009_integrations', '0010_bot_checks_and_spam_filter', '0011_admin_and_sessions', '0012_search_indexed_after_commit', '0013_hourly_counts', '0014_forms_created_index', '0015_postgres_submit_counts', '0016_search_vector_parallel_restricted', '0017_sqlite_search_merges_in_steps', '0018_counters_hours_before_totals', '0019_deliveries_sent_again', '0020_team_inbox', '0021_email_changes_and_time_zones', '0022_api_key_scopes', '0023_files', '0024_submission_language', '0025_sso_identities', '0026_audit_log', '0027_users_and_memberships', '0028_hook_delivery_attempts', '0029_outbox_attempts', '0030_instance_admin_is_a_user', '0031_email_confirmation', '0032_tests_and_skips_in_outbox_log', '0033_sessions_signed_on_at', '0034_form_keys_and_api_writes', '0036_integration_settings', '0037_assignees_are_triagers', '0038_account_team_name']);
    expect(await migrateToLatest(file.handle)).toEqual([]);
    // Introspection lists every schema of the database: look at the one in use only.
    const schema = await currentSchema(file.handle);
    const tables = (await file.handle.db.introspection.getTables())
      .filter((t) => schema === undefined || t.schema === schema)
      .map((t) => t.name)
      // SQLite's FTS5 search index and its shadow tables (migration 0006).
      .filter((name) => !name.startsWith('submissions_fts'))
      .sort();
    expect(tables).toEqual(
      [
        'accounts', 'api_idempotency_keys', 'api_keys', 'files', 'email_messages', 'email_recipients', 'email_suppressions', 'form_counts', 'form_hourly_counts', 'forms',
        'hook_deliveries', 'hooks', 'idempotency_keys', 'instance_secrets', 'instance_settings', 'integration_messages', 'integrations',
        'outbox', 'outbox_attempts', 'password_resets', 'sessions', 'submissions', 'sso_identities', 'audit_events', 'email_changes', 'submission_triage', 'submission_tags',
        'users', 'memberships', 'invitations',
        'altcha_spent_solutions', 'spam_filter_models', 'spam_filter_tokens', 'spam_filter_lessons',
      ].sort(),
    );
  });

  it('the paging query the API runs is an index range scan, without a sort, at any depth', async () => {
    // The exact SQL and parameters Kysely sends for a real listSubmissions call (second page, so
    // the keyset condition is there too), captured from a connection of this file.database.
    const captured: CompiledQuery[] = [];
    const capturing = file.database.open({ onQuery: (query) => captured.push(query) });
    try {
      const services = servicesFor(capturing);
      const owner = await createOwner(services);
      await insertSubmissions(
        services,
        owner.form.id,
        Array.from({ length: 30 }, (_, i) => ({ createdAt: `2026-01-01T00:00:00.0${String(i).padStart(2, '0')}Z`, isSpam: i % 3 === 0 })),
      );
      for (const spam of [undefined, true, false]) {
        const first = await services.submissionQueries.listSubmissions(owner.account.id, owner.form.id, { limit: 5, ...(spam === undefined ? {} : { spam }) });
        captured.length = 0;
        await services.submissionQueries.listSubmissions(owner.account.id, owner.form.id, {
          limit: 5,
          cursor: first.nextCursor!,
          ...(spam === undefined ? {} : { spam }),
        });
        const paging = captured.filter((q) => /from "submissions"/.test(q.sql) && /order by/.test(q.sql));
        expect(paging).toHaveLength(1);
        const plan = await explain(paging[0]!);
        expect(plan).toMatch(spam === undefined ? /submissions_form_newest_idx/ : /submissions_form_spam_newest_idx/);
        expect(plan).not.toMatch(/TEMP B-TREE|Sort|Seq Scan/);
        // The keyset position is part of the index seek, not a filter over rows read.
        expect(plan).toMatch(/Index Cond: .*ROW\(created_at, id\) < |SEARCH .*\(created_at,id\)<\(\?,\?\)/);
      }
    } finally {
      await capturing.close();
    }
  });

  const config = parseConfig({});

  it('creates accounts with the default plan, and refuses a duplicate email', async () => {
    const accounts = new AccountService(file.handle.db, config);
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
    const accounts = new AccountService(file.handle.db, config);
    const keys = new ApiKeyService(file.handle.db);
    const account = await accounts.createAccount({ email: 'keys@example.com' });
    const { key, apiKey } = await keys.createApiKey(account.id, 'ci');
    expect(apiKey).toMatch(/^fgk_[0-9A-Za-z]{40}$/);
    const stored = await file.handle.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(apiKey.slice(10));
    expect(await keys.authenticate(apiKey)).toEqual({ accountId: account.id, keyId: key.id, scope: 'read' });
    expect((await keys.listApiKeys(account.id))[0]!.lastUsedAt).not.toBeNull();
    // One character changed (a fixed "x" left the key intact whenever it already ended in x).
    expect(await keys.authenticate(`${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}`)).toBeUndefined();
    expect(await keys.authenticate('not-a-key')).toBeUndefined();
    await keys.revokeApiKey(key.id);
    expect(await keys.authenticate(apiKey)).toBeUndefined();
  });

  it('creates and updates forms with every setting, listing newest first', async () => {
    const accounts = new AccountService(file.handle.db, config);
    const forms = new FormService(file.handle.db);
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
    // Fixed times: both may well have been created in one millisecond.
    const services = servicesFor(file.handle);
    await setCreatedAt(services, 'forms', first.id, '2026-06-01T00:00:00.000Z');
    await setCreatedAt(services, 'forms', second.id, '2026-06-01T00:00:00.001Z');
    expect((await forms.listForms(account.id)).map((f) => f.name)).toEqual(['Second', 'First']);
    // A tie is broken by ID, descending.
    await setCreatedAt(services, 'forms', second.id, '2026-06-01T00:00:00.000Z');
    const byId = [first, second].sort((a, b) => (a.id < b.id ? 1 : -1)).map((f) => f.name);
    expect((await forms.listForms(account.id)).map((f) => f.name)).toEqual(byId);
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
