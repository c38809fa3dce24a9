import { sql } from 'kysely';
import { waitFor } from '../helpers/wait.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsActor } from '../../src/audit/audit.context.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const asCli = <T>(fn: () => Promise<T>) => runAsActor(() => ({ actor: { type: 'cli', label: 'cli' }, address: undefined }), fn);

describe('the audit log', () => {
  it('records dashboard sign-ins, failed sign-ins and key changes with the owner and the address', async () => {
    const email = `audited-${Date.now()}@example.com`;
    const browser = new DashboardClient(t.url);
    await browser.signUp(email, 'correct horse battery');
    const account = (await t.services.accounts.findAccountByEmail(email))!;
    await browser.get('/dashboard/keys');
    expect((await browser.post('/dashboard/keys', { name: 'Zapier' })).res.status).toBe(303);
    const [key] = await t.services.apiKeys.listApiKeys(account.id);
    await browser.get(`/dashboard/keys/${key!.id}/revoke`);
    expect((await browser.post(`/dashboard/keys/${key!.id}/revoke`, {})).res.status).toBe(303);

    const stranger = new DashboardClient(t.url);
    await stranger.get('/dashboard/login');
    expect((await stranger.post('/dashboard/login', { email, password: 'not the password' })).res.status).toBe(401);

    // The failed sign-in is recorded after its answer (so that it takes no longer than an unknown email's).
    await waitFor(async () => (await t.services.audit.listEvents(account.id)).length === 4, 10_000, 'the failed sign-in recorded');
    const events = await t.services.audit.listEvents(account.id);
    expect(events.map((e) => [e.action, e.actor.label, e.address, e.target?.type ?? null])).toEqual([
      ['sign_in_failed', email, '127.0.0.1', null],
      ['api_key.revoked', email, '127.0.0.1', 'api_key'],
      ['api_key.created', email, '127.0.0.1', 'api_key'],
      ['sign_in', email, '127.0.0.1', null],
    ]);
    expect(events[2]!.details).toEqual({ name: 'Zapier', prefix: key!.prefix });
    expect(events[3]!.details).toEqual({ method: 'password' });
  });

  it('records what the CLI changes as `cli`, with the names of changed settings and never their values', async () => {
    const account = await createAccount(t.services);
    const form = await asCli(() => t.services.forms.createForm(account.id, { name: 'Contact' }));
    await asCli(() => t.services.forms.updateForm(form.id, { name: 'Contact us', accessKey: 'a-secret-access-key-1234' }));
    const events = await t.services.audit.listEvents(account.id);
    expect(events.map((e) => [e.action, e.actor.type, e.actor.label, e.address])).toEqual([
      ['form.updated', 'cli', 'cli', null],
      ['form.created', 'cli', 'cli', null],
    ]);
    expect(events[0]!.details).toEqual({ changed: ['accessKey', 'name'] });
    expect(JSON.stringify(events)).not.toContain('a-secret-access-key-1234');
  });

  it('records marks with how many and as what, for the account of the submissions when the CLI marks', async () => {
    const account = await createAccount(t.services);
    const form = await createForm(t.services, account.id);
    const ids = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString() }, { createdAt: new Date().toISOString() }]);
    await asCli(() => t.services.triage.markSubmissions(ids, true));
    await t.services.triage.markSubmissions([ids[0]!], false, account.id);
    const events = await t.services.audit.listEvents(account.id, { action: 'submissions.marked' });
    expect(events.map((e) => [e.actor.label, e.target, e.details])).toEqual([
      ['formgate', { type: 'submission', id: ids[0] }, { as: 'not spam', count: 1 }],
      ['cli', null, { as: 'spam', count: 2 }],
    ]);
  });

  it('writes the event in the transaction of the change: a refused event undoes the change', async () => {
    const account = await createAccount(t.services);
    if (testDialect === 'sqlite') {
      await sql`create trigger refuse_key_events before insert on audit_events when new.action = 'api_key.created'
        begin select raise(abort, 'refused by the test'); end`.execute(t.handle.db);
    } else {
      await sql`create function refuse_key_events() returns trigger language plpgsql as $$
        begin raise exception 'refused by the test'; end $$`.execute(t.handle.db);
      await sql`create trigger refuse_key_events before insert on audit_events
        for each row when (new.action = 'api_key.created') execute function refuse_key_events()`.execute(t.handle.db);
    }
    try {
      await expect(t.services.apiKeys.createApiKey(account.id, 'Never')).rejects.toThrow(/refused by the test/);
      expect(await t.services.apiKeys.listApiKeys(account.id)).toEqual([]);
    } finally {
      await sql`drop trigger refuse_key_events${sql.raw(testDialect === 'postgres' ? ' on audit_events' : '')}`.execute(t.handle.db);
    }
    // A change refused before it is made writes no event either.
    await expect(t.services.hooks.createHook(account.id, { formId: 'frm_missing', targetUrl: 'https://example.com/' })).rejects.toThrow();
    expect(await t.services.audit.listEvents(account.id)).toEqual([]);
  });

  it('filters by actor and action, pages newest first, and purges what is older than AUDIT_RETENTION_DAYS', async () => {
    const account = await createAccount(t.services);
    const form = await createForm(t.services, account.id);
    for (let i = 0; i < 5; i++) await asCli(() => t.services.forms.updateForm(form.id, { name: `Name ${i}` }));
    const updates = await t.services.audit.listEvents(account.id, { action: 'form.updated', actor: 'cli', limit: 3 });
    expect(updates).toHaveLength(3);
    const older = await t.services.audit.listEvents(account.id, { action: 'form.updated', before: updates.at(-1)!.id, limit: 3 });
    expect(older).toHaveLength(2);
    expect([...updates, ...older].map((e) => e.id)).toEqual([...updates, ...older].map((e) => e.id).sort().reverse());
    expect(await t.services.audit.listEvents(account.id, { actor: 'someone@else.example' })).toEqual([]);

    const later = new Date(Date.now() + (t.config.auditRetentionDays + 1) * 86_400_000).toISOString();
    expect(await t.services.audit.purgeExpired(later)).toBeGreaterThanOrEqual(6);
    expect(await t.services.audit.listEvents(account.id)).toEqual([]);
  });

  it('shows the log to the owner, filtered, with what it records escaped', async () => {
    const email = `page-${Date.now()}@example.com`;
    const browser = new DashboardClient(t.url);
    await browser.signUp(email);
    await browser.get('/dashboard/keys');
    await browser.post('/dashboard/keys', { name: '<script>alert(1)</script>' });
    const all = await browser.get('/dashboard/audit');
    expect(all.res.status).toBe(200);
    const what = (html: string) => [...html.matchAll(/<td data-label="What">([^<]+)<\/td>/g)].map((m) => m[1]);
    expect(what(all.html)).toEqual(['API key created', 'Signed in']);
    expect(all.html).toContain('name: &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(all.html).not.toContain('<script>alert(1)');
    const filtered = await browser.get('/dashboard/audit?action=sign_in');
    expect(what(filtered.html)).toEqual(['Signed in']);
    expect(filtered.html).toContain('<option value="sign_in" selected>');
    // Another account's log is not reachable: the page shows only the signed-in owner's.
    const other = new DashboardClient(t.url);
    await other.signUp(`other-${Date.now()}@example.com`);
    expect((await other.get('/dashboard/audit')).html).not.toContain(email);
  });
});
