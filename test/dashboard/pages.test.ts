import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { expectCsrfRefused } from '../helpers/csrf.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, insertSubmissions } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

let n = 0;
async function owner(plan: 'free' | 'pro' = 'free') {
  const client = new DashboardClient(t);
  const email = `owner${++n}@example.com`;
  await client.signUp(email);
  const account = await t.services.accounts.getAccountByIdOrEmail(email);
  if (plan !== 'free') await t.services.accounts.setPlan(email, plan);
  const form = await t.services.forms.createForm(account.id, { name: 'Contact' });
  return { client, account, form, email };
}

describe('settings page', () => {
  it('puts an access key with & " < > into the snippet HTML-escaped, so the pasted form works', async () => {
    const { client, form } = await owner();
    const key = `a&b"c<d>e'f`;
    await client.get(`/dashboard/forms/${form.id}/settings`);
    const saved = await client.postPairs(`/dashboard/forms/${form.id}/settings`, [['name', 'Contact'], ['isActive', '1'], ['requireAccessKey', '1'], ['accessKey', key]]);
    expect(saved.res.status).toBe(200);
    // The snippet is shown inside <pre> (escaped once more); unescape that layer to get what is copied.
    const pre = /<pre id="snippet">([\s\S]*?)<\/pre>/.exec(saved.html)![1]!;
    const copied = pre.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    expect(copied).toContain('value="a&amp;b&quot;c&lt;d&gt;e&#39;f"');
    // What a browser would submit from that snippet is the key itself: accepted.
    const decoded = /name="access_key" value="([^"]*)"/.exec(copied)![1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    expect(decoded).toBe(key);
    expect((await submit(t, form.id, { json: { access_key: decoded, m: 'hi' } })).status).toBe(200);
  });

  it('answers a repeated or non-text field with a field error, not a 500, and keeps what was typed', async () => {
    const { client, form } = await owner();
    await client.get(`/dashboard/forms/${form.id}/settings`);
    const twice = await client.postPairs(`/dashboard/forms/${form.id}/settings`, [['name', 'Typed name'], ['isActive', '1'], ['successUrl', 'https://a.example/'], ['successUrl', 'https://b.example/']]);
    expect(twice.res.status).toBe(400);
    expect(twice.html).toContain('id="successUrl-error">Enter one value only');
    expect(twice.html).toContain('value="Typed name"');
    const json = await client.postJson(`/dashboard/forms/${form.id}/settings`, { name: 'Contact', successUrl: 5 });
    expect(json.res.status).toBe(400);
    expect(json.html).toContain('id="successUrl-error">Enter text');
    expect((await t.services.forms.getForm(form.id)).successUrl).toBeNull();
  });

  it('keeps the form active when isActive is sent twice, and names a missing access key in words', async () => {
    const { client, form } = await owner();
    await client.get(`/dashboard/forms/${form.id}/settings`);
    const saved = await client.postPairs(`/dashboard/forms/${form.id}/settings`, [['name', 'Contact'], ['isActive', '1'], ['isActive', '1']]);
    expect(saved.res.status).toBe(200);
    expect((await t.services.forms.getForm(form.id)).isActive).toBe(true);
    const missing = await client.postPairs(`/dashboard/forms/${form.id}/settings`, [['name', 'Kept'], ['isActive', '1'], ['requireAccessKey', '1'], ['accessKey', ' '], ['successUrl', 'https://typed.example/ok']]);
    expect(missing.res.status).toBe(400);
    expect(missing.html).toContain('id="accessKey-error">Enter an access key');
    expect(missing.html).toContain('value="https://typed.example/ok"');
    expect(missing.html).toContain('value="Kept"');
    const bad = await client.postPairs(`/dashboard/forms/${form.id}/settings`, [['name', 'Contact'], ['isActive', '1'], ['successUrl', 'javascript:alert(1)']]);
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('id="successUrl-error">Enter a full address');
  });

  it('gives the error page a working log-out button (with a CSRF token)', async () => {
    const { client } = await owner();
    const missing = await client.get('/dashboard/forms/frm_doesnotexist/settings');
    expect(missing.res.status).toBe(404);
    expect(missing.html).toContain('<h1>Not found</h1>');
    expect(missing.html).toMatch(/action="\/dashboard\/logout"[^>]*><input type="hidden" name="_csrf" value="[^"]+"/);
    const out = await client.post('/dashboard/logout', {});
    expect(out.res.status).toBe(303);
    expect((await client.get('/dashboard/forms')).res.status).toBe(303);
  });
});

describe('navigation and details', () => {
  it('answers an unknown dashboard address with an HTML 404 inside the layout, naming who is logged in', async () => {
    const { client, email } = await owner();
    const { res, html } = await client.get('/dashboard/no/such/page');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(html).toContain('<h1>Not found</h1>');
    expect(html).toContain(`Signed in as <strong>${email}</strong>`);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
  });

  it('sends nosniff on every kind of response, and a CSP on /thanks and the hosted error page', async () => {
    const { form } = await owner();
    for (const path of ['/thanks', '/thanks?error=form_inactive', '/v1/openapi.json', '/v1/api/me', '/nope', '/dashboard/login', '/healthz']) {
      const res = await t.fetch(`${path}`);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    for (const path of ['/thanks', '/thanks?error=rate_limited']) {
      const csp = (await t.fetch(`${path}`)).headers.get('content-security-policy');
      expect(csp, path).toMatch(/default-src 'none'/);
      expect(csp).toMatch(/style-src 'sha256-/);
    }
    await t.services.forms.updateForm(form.id, { isActive: false });
    const refused = await submit(t, form.id, { form: { m: 'x' } }, { accept: 'text/html' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('lists forms with counts and last submission; the list pages both ways with the position shown', async () => {
    const { client, account, form } = await owner();
    const base = Date.now() - 3_600_000;
    await insertSubmissions(t.services, form.id, Array.from({ length: 120 }, (_, i) => ({ createdAt: new Date(base + i * 1000).toISOString(), payload: { m: `row ${i}` }, isSpam: i < 5 })));
    const forms = await client.get('/dashboard/forms');
    expect(forms.html).toMatch(new RegExp(`data-form="${form.id}"[\\s\\S]*?inbox-count">115<[\\s\\S]*?spam-count">5<`));
    expect(forms.html).toContain(`<time datetime="${new Date(base + 119_000).toISOString()}">`);
    const first = await client.get(`/dashboard/forms/${form.id}/submissions`);
    expect(first.html).toContain('Showing 1–50 of 115');
    expect(first.html).not.toContain('← Newer');
    const older = /href="([^"]+)">Older →/.exec(first.html)![1]!.replace(/&amp;/g, '&');
    const second = await client.get(`/dashboard/forms/${form.id}/submissions${older}`);
    expect(second.html).toContain('Showing 51–100 of 115');
    expect(second.html).toContain('row 69');
    const newer = /href="([^"]+)">← Newer/.exec(second.html)![1]!.replace(/&amp;/g, '&');
    const back = await client.get(`/dashboard/forms/${form.id}/submissions${newer}`);
    expect(back.html).toContain('Showing 1–50 of 115');
    expect(back.html).toContain('row 119');
    // The page shows the account's counters, which no other account can read.
    expect((await t.services.submissionBrowser.summariseForms(account.id, [form.id])).get(form.id)).toEqual({ inbox: 115, spam: 5, unread: 115, open: 115, lastSubmissionAt: new Date(base + 119_000).toISOString() });
    const stranger = await createAccount(t.services);
    expect((await t.services.submissionBrowser.summariseForms(stranger.id, [form.id])).size).toBe(0);
  });
});

describe('bulk delete and post/redirect/get', () => {
  it('confirms before deleting the selection, then says how many went', async () => {
    const { client, form } = await owner();
    const ids = await insertSubmissions(t.services, form.id, [1, 2, 3].map((i) => ({ createdAt: new Date(Date.now() - i * 1000).toISOString(), payload: { m: `x${i}` } })));
    await client.get(`/dashboard/forms/${form.id}/submissions`);
    const confirm = await client.postPairs(`/dashboard/forms/${form.id}/submissions/bulk`, [['action', 'delete'], ['ids', ids[0]!], ['ids', ids[1]!]]);
    expect(confirm.res.status).toBe(200);
    expect(confirm.html).toContain('Delete 2 submissions?');
    expect((await t.services.submissionBrowser.browse((await t.services.forms.getForm(form.id)).accountId, form.id, {})).submissions).toHaveLength(3);
    const done = await client.postPairs(`/dashboard/forms/${form.id}/submissions/bulk`, [['action', 'delete'], ['confirm', '1'], ['ids', ids[0]!], ['ids', ids[1]!], ['back', 'https://evil.example/']]);
    expect(done.res.status).toBe(303);
    expect(done.res.headers.get('location')).toBe(`/dashboard/forms/${form.id}/submissions`); // never an open redirect
    const after = await client.get(`/dashboard/forms/${form.id}/submissions`);
    expect(after.html).toContain('Deleted 2 submissions.');
    expect(after.html).toContain('m: x3');
    expect(after.html).not.toContain('m: x1');
    // The notice is one-time.
    expect((await client.get(`/dashboard/forms/${form.id}/submissions`)).html).not.toContain('Deleted 2 submissions.');
  });

  it('creates a key with post/redirect/get: shown once, a refresh creates nothing, an empty name or unknown scope is a field error', async () => {
    const { client, account } = await owner();
    await client.get('/dashboard/keys');
    const empty = await client.post('/dashboard/keys', { name: '  ' });
    expect(empty.res.status).toBe(400);
    expect(empty.html).toContain('id="name-error">Enter a name for the key');
    const created = await client.post('/dashboard/keys', { name: 'Zapier' });
    expect(created.res.status).toBe(303);
    expect(created.res.headers.get('location')).toBe('/dashboard/keys');
    const shown = await client.get('/dashboard/keys');
    expect(shown.html).toMatch(/<pre id="new-key">fgk_[0-9A-Za-z]+<\/pre>/);
    const again = await client.get('/dashboard/keys');
    expect(again.html).not.toContain('id="new-key"');
    // The page with the key is never loaded again by the time-zone script (the key would be gone);
    // a plain GET page may be, a POST's answer may not.
    expect(shown.html).not.toContain('data-reloadable');
    expect(again.html).toContain('data-reloadable');
    expect(empty.html).not.toContain('data-reloadable');
    expect(await t.services.apiKeys.listApiKeys(account.id)).toHaveLength(1);

    // A key of any scope, read by default; the list says each key's scope.
    const form = await client.get('/dashboard/keys');
    expect(form.html).toContain('<option value="read" selected>Read</option>');
    expect(form.html).toContain('<option value="triage">Read and triage</option>');
    expect(form.html).toContain('<option value="manage">Read, triage and manage</option>');
    expect((await client.post('/dashboard/keys', { name: 'Reader' })).res.status).toBe(303);
    expect((await client.post('/dashboard/keys', { name: 'Agent', scope: 'triage' })).res.status).toBe(303);
    expect((await client.post('/dashboard/keys', { name: 'Builder', scope: 'manage' })).res.status).toBe(303);
    const refused = await client.post('/dashboard/keys', { name: 'Root', scope: 'admin' });
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('id="scope-error">Choose Read, Read and triage, or Read, triage and manage.');
    const keys = await t.services.apiKeys.listApiKeys(account.id);
    expect(keys.map((k) => [k.name, k.scope]).sort()).toEqual([['Agent', 'triage'], ['Builder', 'manage'], ['Reader', 'read'], ['Zapier', 'read']]);
    const list = await client.get('/dashboard/keys');
    expect(list.html).toMatch(/<td data-label="Scope">Read and triage<\/td>/);
    expect(list.html).toMatch(/<td data-label="Scope">Read, triage and manage<\/td>/);
    expect(list.html).toMatch(/<td data-label="Scope">Read<\/td>/);
  });

  it('refuses every new dashboard POST without the CSRF token', async () => {
    const { client, form } = await owner('pro');
    const [id] = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString() }]);
    const { hook } = await t.services.hooks.createHook(form.accountId, { formId: form.id, targetUrl: 'https://hooks.example.com/x' });
    await client.get('/dashboard/forms');
    for (const [path, fields] of [
      [`/dashboard/forms/${form.id}/submissions/bulk`, { action: 'delete', ids: id!, confirm: '1' }],
      ['/dashboard/hooks', { formId: form.id, targetUrl: 'https://hooks.example.com/y' }],
      [`/dashboard/hooks/${hook.id}/test`, {}],
      [`/dashboard/hooks/${hook.id}/delete`, {}],
      ['/dashboard/account/email', { email: 'new@example.com', currentPassword: 'correct horse battery' }],
      ['/dashboard/account/password', { currentPassword: 'correct horse battery', newPassword: 'another long one' }],
      ['/dashboard/account/sessions/revoke-others', {}],
      ['/dashboard/account/sessions/x/revoke', {}],
      ['/dashboard/account/delete', { confirmEmail: 'x', currentPassword: 'correct horse battery' }],
      ['/dashboard/keys', { name: 'k' }],
      ['/dashboard/forms', { name: 'f' }],
    ] as const) {
      await expectCsrfRefused(client, path, fields);
    }
    expect(await t.services.submissionQueries.getSubmission(form.accountId, id!)).toMatchObject({ id });
    expect(await t.services.hooks.listHooks(form.accountId)).toHaveLength(1);
  });
});
