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
    ssoOnly = await buildTestApp({ env: { PASSWORD_LOGIN: 'false', OIDC_ISSUER: 'http://127.0.0.1:9/issuer', OIDC_CLIENT_ID: 'formgate', OIDC_CLIENT_SECRET: 'secret' } });
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
