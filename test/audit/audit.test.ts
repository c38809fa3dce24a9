import { sql } from 'kysely';
import { waitFor } from '../helpers/wait.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsActor } from '../../src/features/audit/audit.context.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';
import { newTimeOrderedId } from '../../src/platform/lib/ids.js';

let t: AppUnderTest;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

const asCli = <T>(fn: () => Promise<T>) => runAsActor(() => ({ actor: { type: 'cli', label: 'cli' }, address: undefined }), fn);
const PASSWORD = 'correct horse battery';

async function signIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  return client;
}

/** The details column as stored, for a search of what must never be in it. */
async function storedDetails(accountId: string): Promise<string> {
  const rows = await t.handle.db.selectFrom('audit_events').select('details').where('account_id', '=', accountId).execute();
  return rows.map((row) => row.details ?? '').join('\n');
}

describe('the audit log', () => {
  it('records dashboard sign-ins, failed sign-ins and key changes with the owner and the address', async () => {
    const email = `audited-${Date.now()}@example.com`;
    const browser = new DashboardClient(t);
    await browser.signUp(email, 'correct horse battery');
    const account = (await t.services.accounts.findAccountByEmail(email))!;
    await browser.get('/dashboard/keys');
    expect((await browser.post('/dashboard/keys', { name: 'Zapier' })).res.status).toBe(303);
    const [key] = await t.services.apiKeys.listApiKeys(account.id);
    await browser.get(`/dashboard/keys/${key!.id}/revoke`);
    expect((await browser.post(`/dashboard/keys/${key!.id}/revoke`, {})).res.status).toBe(303);

    const stranger = new DashboardClient(t);
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
    const browser = new DashboardClient(t);
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
    const other = new DashboardClient(t);
    await other.signUp(`other-${Date.now()}@example.com`);
    expect((await other.get('/dashboard/audit')).html).not.toContain(email);
  });

  it('lists only the settings a dashboard save changed, secrets by name and never by value, with the form by name', async () => {
    const email = `settings-${Date.now()}@example.com`;
    const browser = new DashboardClient(t);
    await browser.signUp(email);
    const account = (await t.services.accounts.findAccountByEmail(email))!;
    const form = await createForm(t.services, account.id, { name: 'Contact' });
    const page = `/dashboard/forms/${form.id}/settings`;
    const secret = 'turnstile-secret-9f3kq2';
    const accessKey = 'access-key-4711-zz';
    // The page sends every setting, changed or not.
    // Numbers too: PostgreSQL reads a bigint back as text, and an unchanged one is no change.
    const sent = { name: 'Contact', isActive: '1', storeIp: 'full', botCheck: 'turnstile', turnstileSecret: secret, turnstileSiteKey: '0x4AAA', successUrl: 'https://example.com/thanks', requireAccessKey: '1', accessKey, maxFileBytes: '1048576', recaptchaMinScore: '0.7', retentionDays: '30' };
    await browser.get(page);
    expect((await browser.post(page, sent)).res.status).toBe(200);
    expect((await browser.post(page, sent)).res.status).toBe(200);
    expect((await browser.post(page, { ...sent, name: 'Contact us' })).res.status).toBe(200);

    const events = await t.services.audit.listEvents(account.id, { action: 'form.updated' });
    expect(events.map((e) => [e.actor.label, e.target, e.details])).toEqual([
      [email, { type: 'form', id: form.id, label: 'Contact us' }, { changed: ['name'] }],
      // The same page sent again changed nothing, and wrote nothing.
      [email, { type: 'form', id: form.id, label: 'Contact' }, { changed: ['accessKey', 'botCheck', 'maxFileBytes', 'recaptchaMinScore', 'retentionDays', 'successUrl', 'turnstileSecret', 'turnstileSiteKey'] }],
    ]);
    const stored = await storedDetails(account.id);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(accessKey);
  });

  it('records notification recipients and integrations by name, and a recipient change is no settings change', async () => {
    const owner = await createAccount(t.services, { password: PASSWORD });
    const form = await createForm(t.services, owner.id, { name: 'Orders' });
    const actor = { type: 'user' as const, id: owner.id, label: owner.email };
    const asOwner = <T>(fn: () => Promise<T>) => runAsActor(() => ({ actor, address: '127.0.0.1' }), fn);
    const token = 'ntfy-token-never-logged';
    await asOwner(async () => {
      await t.services.notifications.setRecipients(form.id, ['a@example.com', 'b@example.com'], { verified: false, accountId: owner.id });
      await t.services.notifications.setRecipients(form.id, ['b@example.com', 'c@example.com'], { verified: false, accountId: owner.id });
      // The notifications section also sends the (unchanged) mode.
      await t.services.forms.updateForm(form.id, { notifyMode: 'each' }, owner.id);
      const integration = await t.services.integrations.addIntegration(form.id, { kind: 'ntfy', url: 'https://ntfy.example.com/orders', token, name: 'Phone' }, owner.id);
      await t.services.integrations.setEnabled(integration.id, false, owner.id);
      await t.services.integrations.setEnabled(integration.id, false, owner.id);
      await t.services.integrations.setEnabled(integration.id, true, owner.id);
      await t.services.integrations.removeIntegration(integration.id, owner.id);
    });
    const events = (await t.services.audit.listEvents(owner.id)).filter((e) => e.action !== 'form.created');
    const formTarget = { type: 'form', id: form.id, label: 'Orders' };
    const integrationId = events.find((e) => e.action === 'integration.added')!.target!.id;
    const phone = { type: 'integration', id: integrationId, label: 'Phone' };
    const where = { formId: form.id, form: 'Orders', kind: 'ntfy' };
    expect(events.map((e) => [e.action, e.actor, e.target, e.details])).toEqual([
      ['integration.removed', actor, phone, { ...where, name: 'Phone' }],
      ['integration.enabled', actor, phone, where],
      ['integration.disabled', actor, phone, where],
      ['integration.added', actor, phone, { ...where, name: 'Phone' }],
      ['notification.recipient_added', actor, formTarget, { address: 'c@example.com' }],
      ['notification.recipient_removed', actor, formTarget, { address: 'a@example.com' }],
      ['notification.recipient_added', actor, formTarget, { address: 'b@example.com' }],
      ['notification.recipient_added', actor, formTarget, { address: 'a@example.com' }],
    ]);
    expect(await storedDetails(owner.id)).not.toContain(token);
  });

  it('records the instance admin\'s actions: in the account they change, and sign-up and deletions in the admin\'s own', async () => {
    const adminEmail = `instance-admin-${Date.now()}@example.com`;
    const admin = await createAccount(t.services, { email: adminEmail, password: PASSWORD });
    await t.services.accounts.setAdmin(adminEmail, true);
    const customer = await createAccount(t.services, { planId: 'free' });
    const doomed = await createAccount(t.services);
    const client = await signIn(adminEmail);
    await client.get('/dashboard/admin');
    const post = async (path: string, body: Record<string, string>) => expect((await client.post(path, body)).res.status, path).toBe(303);
    await post(`/dashboard/admin/accounts/${customer.id}/plan`, { plan: 'pro' });
    await post(`/dashboard/admin/accounts/${customer.id}/disable`, { disabled: '1' });
    await post(`/dashboard/admin/accounts/${customer.id}/disable`, { disabled: '' });
    const modeBefore = await t.services.admin.signupMode();
    await post('/dashboard/admin/signup', { mode: 'invite' });
    await post('/dashboard/admin/signup', { open: modeBefore === 'open' ? '1' : '' });
    await post(`/dashboard/admin/accounts/${doomed.id}/delete`, {});

    const actor = { type: 'user', id: admin.id, label: adminEmail };
    const customerTarget = { type: 'account', id: customer.id, label: customer.email };
    const changed = await t.services.audit.listEvents(customer.id);
    expect(changed.map((e) => [e.action, e.actor, e.address, e.target, e.details])).toEqual([
      ['account.enabled', actor, '127.0.0.1', customerTarget, null],
      ['account.disabled', actor, '127.0.0.1', customerTarget, null],
      ['account.plan_changed', actor, '127.0.0.1', customerTarget, { from: 'free', to: 'pro' }],
    ]);
    const own = (await t.services.audit.listEvents(admin.id)).filter((e) => e.action !== 'sign_in');
    expect(own.map((e) => [e.action, e.actor, e.target, e.details])).toEqual([
      ['account.deleted', actor, { type: 'account', id: doomed.id, label: doomed.email }, { plan: 'free' }],
      ['signup.mode_changed', actor, null, { from: 'invite', to: modeBefore }],
      ['signup.mode_changed', actor, null, { from: modeBefore, to: 'invite' }],
    ]);
  });

  it('downloads the log as NDJSON for owners and admins, newest first, filtered, a page at a time; members and viewers get 403', async () => {
    const owner = await createAccount(t.services, { password: PASSWORD, planId: 'pro' });
    // More than one page of the download: it is read and sent in pages, never all at once.
    const old = Date.now() - 86_400_000;
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      id: newTimeOrderedId('aud', old + i),
      account_id: owner.id,
      at: new Date(old + i).toISOString(),
      actor_type: 'cli',
      actor_id: null,
      actor_label: 'cli',
      address: null,
      action: 'form.updated',
      target_type: 'form',
      target_id: 'frm_old',
      details: JSON.stringify({ changed: ['name'], targetLabel: 'Old form' }),
    }));
    for (let i = 0; i < rows.length; i += 400) await t.handle.db.insertInto('audit_events').values(rows.slice(i, i + 400)).execute();
    const roles = new Map<string, DashboardClient>([['owner', await signIn(owner.email)]]);
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const email = `${role}-ndjson-${Date.now()}@example.com`;
      await t.services.members.add(owner.id, { email, role, password: PASSWORD });
      roles.set(role, await signIn(email));
    }
    const ownerClient = roles.get('owner')!;
    await ownerClient.get('/dashboard/keys');
    await ownerClient.post('/dashboard/keys', { name: 'Export <key>' });

    const { res, html: body } = await ownerClient.get('/dashboard/audit.ndjson');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const events = body.trimEnd().split('\n').map((line) => JSON.parse(line) as { id: string; action: string; target: unknown; details: unknown });
    expect(events).toHaveLength(1203 + 4 + 3 + 1);
    expect(events.map((e) => e.id)).toEqual(events.map((e) => e.id).sort().reverse());
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events[0]).toMatchObject({ action: 'api_key.created', actor: { type: 'user', id: owner.id, label: owner.email }, target: { type: 'api_key', label: 'Export <key>' }, details: { name: 'Export <key>' } });
    expect(events.at(-1)).toMatchObject({ action: 'form.updated', target: { type: 'form', id: 'frm_old', label: 'Old form' }, details: { changed: ['name'] } });

    const filtered = await ownerClient.get('/dashboard/audit.ndjson?action=member.added');
    expect(filtered.html.trimEnd().split('\n').map((line) => (JSON.parse(line) as { target: { label: string } }).target.label)).toEqual(
      ['viewer', 'member', 'admin'].map((role) => expect.stringMatching(new RegExp(`^${role}-ndjson-`))),
    );
    expect((await roles.get('admin')!.get('/dashboard/audit.ndjson')).res.status).toBe(200);
    for (const role of ['member', 'viewer']) expect((await roles.get(role)!.get('/dashboard/audit.ndjson')).res.status, role).toBe(403);
    // The page links the download with the page's filters, and shows targets by name, escaped.
    const page = await ownerClient.get('/dashboard/audit?action=api_key.created');
    expect(page.html).toContain('href="/dashboard/audit.ndjson?action=api_key.created"');
    expect(page.html).toContain('<td data-label="Target">Export &lt;key&gt;<br>');
  });
});
