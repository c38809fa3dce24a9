import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';

/**
 * The holes an attacker with a second account found, each tried with its real handler: the
 * Admin page and PASSWORD_LOGIN spelled otherwise, the audit actor of a spelled request and of
 * an MCP tool, instance admin across a handover of ownership, and CSRF tokens bound to a session.
 */
const PASSWORD = 'correct horse battery';
const unique = () => `g-${randomBase62(8).toLowerCase()}@example.com`;

let t: AppUnderTest;
let admin: { id: string; email: string };
let attacker: { id: string; email: string };

async function signIn(app: AppUnderTest, email: string): Promise<DashboardClient> {
  const client = new DashboardClient(app);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  await client.get('/dashboard/account');
  return client;
}

beforeAll(async () => {
  t = await buildTestApp();
  // The first account's owner is the instance admin; the attacker signed up after.
  admin = await createAccount(t.services, { email: unique(), password: PASSWORD });
  attacker = await createAccount(t.services, { email: unique(), password: PASSWORD, planId: 'free' });
});

afterAll(async () => {
  await t?.close();
});

describe('the Admin page', () => {
  it('is a 404 to another account\'s owner however its address is spelled, and changes no plan', async () => {
    const client = await signIn(t, attacker.email);
    for (const path of ['/dashboard/%61dmin', '/dashboard/adm%69n', '/%64ashboard/admin', '/dashboard//admin', '/dashboard/admin/']) {
      const page = await client.get(path);
      expect(page.res.status, path).toBe(404);
      expect(page.html, path).not.toContain(admin.email);
    }
    await client.get('/dashboard/account');
    for (const path of [`/dashboard/%61dmin/accounts/${attacker.id}/plan`, `/%64ashboard/admin/accounts/${attacker.id}/plan`, `/dashboard/admin/accounts/${attacker.id}/plan/`]) {
      expect((await client.post(path, { plan: 'business' })).res.status, path).toBe(404);
    }
    expect((await t.services.accounts.getAccount(attacker.id)).planId).toBe('free');
  });

  it('stays with its user when the account is handed to another member', async () => {
    const account = await createAccount(t.services, { email: unique(), password: PASSWORD });
    const heir = unique();
    await t.services.members.add(account.id, { email: heir, role: 'viewer', password: PASSWORD });
    await t.services.accounts.setAdmin(account.email, true);
    const before = await signIn(t, account.email);
    expect((await before.get('/dashboard/admin')).res.status).toBe(200);
    await t.services.members.transferOwnership(account.id, account.id, heir);
    const newOwner = await signIn(t, heir);
    const refused = await newOwner.get('/dashboard/admin');
    expect(refused.res.status).toBe(404);
    expect((await newOwner.get('/dashboard/forms')).html).not.toContain('href="/dashboard/admin"');
    // The former owner, an admin member now, still has the instance's Admin page, which names the new owner.
    const page = await before.get('/dashboard/admin');
    expect(page.res.status).toBe(200);
    expect(page.html).toContain(`data-account="${heir}"`);
    await t.services.accounts.setAdmin(account.email, false);
    expect((await before.get('/dashboard/admin')).res.status).toBe(404);
  });
});

describe('PASSWORD_LOGIN=false', () => {
  let ssoOnly: AppUnderTest;
  beforeAll(async () => {
    // The same database as the app with passwords: the operator switched to single sign-on only.
    ssoOnly = await buildTestApp({ database: t.database, env: { PASSWORD_LOGIN: 'false', OIDC_ISSUER: 'http://127.0.0.1:9/issuer', OIDC_CLIENT_ID: 'formgate', OIDC_CLIENT_SECRET: 'secret' } });
  });
  afterAll(async () => ssoOnly?.close());

  it('serves no reset form and signs nobody in by password, however the address is spelled', async () => {
    const user = await createAccount(ssoOnly.services, { email: unique(), password: PASSWORD });
    const browser = new DashboardClient(ssoOnly);
    for (const path of ['/%64ashboard/forgot-password', '/dashboard/forgot-p%61ssword', '/dashboard//signup', '/dashboard/reset-password/x/']) {
      const page = await browser.get(path);
      expect(page.res.status, path).toBe(404);
      expect(page.html, path).not.toContain('name="email"');
    }
    await browser.get('/dashboard/login');
    for (const path of ['/dashboard/login/', '/dashboard/l%6fgin', '//dashboard/login']) {
      const { res } = await browser.post(path, { email: user.email, password: PASSWORD });
      expect(res.status, path).toBe(404);
      expect(browser.cookies.has('fg_session'), path).toBe(false);
    }
  });

  it('ends sessions a password opened before the switch, saying why', async () => {
    const user = await createAccount(t.services, { email: unique(), password: PASSWORD });
    const before = await signIn(t, user.email);
    const after = new DashboardClient(ssoOnly);
    for (const [name, value] of before.cookies) after.cookies.set(name, value);
    const refused = await after.get('/dashboard/forms');
    expect(refused.res.status).toBe(303);
    expect(refused.res.headers.get('location')).toBe('/dashboard/login');
    expect((await after.get('/dashboard/login')).html).toContain('signs in by single sign-on only');
    // The server with passwords still takes it: the session itself is untouched.
    expect((await before.get('/dashboard/forms')).res.status).toBe(200);
  });

  it('offers no password where none can be used: no "Change password", no password for a new account', async () => {
    const admin = await ssoOnly.services.accounts.findUserByEmail((await ssoOnly.services.admin.listAccounts()).find((a) => a.ownerIsAdmin)!.email);
    const token = await ssoOnly.services.sessions.startSession(admin!.id, (await ssoOnly.services.accounts.findAccountByEmail(admin!.email))!.id, { method: 'sso' });
    const browser = new DashboardClient(ssoOnly);
    browser.cookies.set('fg_session', token);
    const account = await browser.get('/dashboard/account');
    expect(account.res.status).toBe(200);
    expect(account.html).not.toContain('Change password');
    const adminPage = await browser.get('/dashboard/admin');
    expect(adminPage.html).toContain('Create account');
    expect(adminPage.html).not.toContain('name="password"');
    const email = unique();
    const made = await browser.post('/dashboard/admin/accounts', { email, password: 'a password that is ignored' });
    expect(made.res.status).toBe(303);
    expect((await browser.get('/dashboard/admin')).html).toContain(`${email} has an account now: they sign in by single sign-on.`);
    expect(await ssoOnly.services.accounts.verifyCredentials(email, 'a password that is ignored')).toBeUndefined();
  });
});

describe('a removed member', () => {
  it('lands on the log-in page with the reason', async () => {
    const email = unique();
    await t.services.members.add(admin.id, { email, role: 'member', password: PASSWORD });
    const member = await signIn(t, email);
    await t.services.members.remove(admin.id, { email });
    const refused = await member.get('/dashboard/forms');
    expect(refused.res.headers.get('location')).toBe('/dashboard/login');
    expect((await member.get('/dashboard/login')).html).toContain('You are no longer a member of the account you were signed in to');
  });
});

describe('the audit actor', () => {
  it('is the member who deleted a submission through a spelled address', async () => {
    const form = await createForm(t.services, admin.id);
    const [submission] = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString() }]);
    const email = unique();
    const added = await t.services.members.add(admin.id, { email, role: 'member', password: PASSWORD });
    if (!('member' in added)) throw new Error('expected a member');
    const member = await signIn(t, email);
    const { res } = await member.post(`/%64ashboard/submissions/${submission}/delete`, { confirm: '1' });
    expect(res.status).toBe(303);
    const [event] = await t.services.audit.listEvents(admin.id, { action: 'submissions.deleted' });
    expect(event!.actor).toMatchObject({ type: 'user', id: added.member.userId, label: email });
  });

  it('is the API key that called an MCP tool', async () => {
    const form = await createForm(t.services, admin.id);
    const [submission] = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString() }]);
    const { key, apiKey } = await t.services.apiKeys.createApiKey(admin.id, 'agent', 'triage');
    const client = new Client({ name: 'guards-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.config.baseUrl}/v1/mcp`), { fetch: t.fetch, requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
    try {
      const result = await client.callTool({ name: 'mark_spam', arguments: { submissionId: submission } });
      expect(result.isError).not.toBe(true);
    } finally {
      await client.close();
    }
    const [event] = await t.services.audit.listEvents(admin.id, { action: 'submissions.marked' });
    expect(event!.actor).toMatchObject({ type: 'api_key', id: key.id });
    expect(event!.address).toBe('127.0.0.1');
  });
});

describe('read and unread', () => {
  it('change when a member opens a submission, never when a viewer does', async () => {
    const form = await createForm(t.services, admin.id);
    const [submission] = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString() }]);
    const readAt = async () =>
      (await t.handle.db.selectFrom('submission_triage').select('read_at').where('submission_id', '=', submission!).executeTakeFirst())?.read_at ?? null;
    const viewerEmail = unique();
    const memberEmail = unique();
    await t.services.members.add(admin.id, { email: viewerEmail, role: 'viewer', password: PASSWORD });
    await t.services.members.add(admin.id, { email: memberEmail, role: 'member', password: PASSWORD });
    const viewer = await signIn(t, viewerEmail);
    expect((await viewer.get(`/dashboard/submissions/${submission}`)).res.status).toBe(200);
    expect(await readAt()).toBeNull();
    const member = await signIn(t, memberEmail);
    expect((await member.get(`/dashboard/submissions/${submission}`)).res.status).toBe(200);
    expect(await readAt()).not.toBeNull();
  });
});

describe('destructive team actions', () => {
  it('ask first on a page that names the consequence, and act only once confirmed', async () => {
    const account = await createAccount(t.services, { email: unique(), password: PASSWORD });
    const adminEmail = unique();
    const viewerEmail = unique();
    await t.services.members.add(account.id, { email: adminEmail, role: 'admin', password: PASSWORD });
    const viewerAdded = await t.services.members.add(account.id, { email: viewerEmail, role: 'viewer', password: PASSWORD });
    if (!('member' in viewerAdded)) throw new Error('expected a member');
    const owner = await signIn(t, account.email);
    const roleOf = async (email: string) => (await t.services.members.listMembers(account.id)).find((m) => m.email === email)?.role;

    await owner.get('/dashboard/members');
    const removal = await owner.post(`/dashboard/members/${viewerAdded.member.userId}/remove`, {});
    expect(removal.res.status).toBe(200);
    expect(removal.html).toContain(`Remove ${viewerEmail}?`);
    expect(removal.html).toContain('loses access');
    expect(await roleOf(viewerEmail)).toBe('viewer');
    expect((await owner.post(`/dashboard/members/${viewerAdded.member.userId}/remove`, { confirm: '1' })).res.status).toBe(303);
    expect(await roleOf(viewerEmail)).toBeUndefined();

    await owner.get('/dashboard/members');
    const handover = await owner.post('/dashboard/members/transfer', { email: adminEmail });
    expect(handover.res.status).toBe(200);
    expect(handover.html).toContain(`Hand this account to ${adminEmail}?`);
    expect(handover.html).toContain(`name="email" value="${adminEmail}"`);
    expect(await roleOf(adminEmail)).toBe('admin');

    const admin = await signIn(t, adminEmail);
    await admin.get('/dashboard/members');
    const leaving = await admin.post('/dashboard/members/leave', {});
    expect(leaving.res.status).toBe(200);
    expect(leaving.html).toContain('Leave this account?');
    expect(await roleOf(adminEmail)).toBe('admin');
    expect((await admin.post('/dashboard/members/leave', { confirm: '1' })).res.status).toBe(303);
    expect(await roleOf(adminEmail)).toBeUndefined();
  });
});

describe('CSRF', () => {
  it('refuses a token issued to another session', async () => {
    const victim = await signIn(t, admin.email);
    const other = await signIn(t, attacker.email);
    // The attacker's own token and CSRF cookie, planted beside the victim's session.
    victim.cookies.set('fg_csrf', other.cookies.get('fg_csrf')!);
    victim.csrf = other.csrf;
    const { res, html } = await victim.post('/dashboard/account', { displayName: 'Hijacked' });
    expect(res.status).toBe(403);
    expect(html).toContain('This form expired or did not come from this site');
    expect((await t.services.accounts.getUser(admin.id)).displayName).not.toBe('Hijacked');
    // The victim's own page still works.
    await victim.get('/dashboard/account');
    expect((await victim.post('/dashboard/account', { displayName: 'Mine' })).res.status).toBe(303);
  });

  it('keeps its cookie under the __Host- prefix behind https', async () => {
    const https = await buildTestApp({ env: { BASE_URL: 'https://forms.example.com' } });
    try {
      const res = await https.fetch('/dashboard/login');
      const cookie = res.headers.getSetCookie().find((line) => line.includes('fg_csrf='));
      expect(cookie).toMatch(/^__Host-fg_csrf=/);
      expect(cookie).toMatch(/; Path=\/(;|$)/);
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).not.toMatch(/Domain=/i);
    } finally {
      await https.close();
    }
  });
});
