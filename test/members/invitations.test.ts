import { INVITATIONS_PER_DAY } from '../../src/features/members/member.service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/platform/lib/token-hash.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { freePort, buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount } from '../helpers/factories.js';
import { startOidcProvider, type TestIdentity, type TestOidcProvider } from '../helpers/oidc-provider.js';

const CALLBACK = '/dashboard/auth/oidc/callback';
const PASSWORD = 'correct horse battery';
let t: AppUnderTest;
let provider: TestOidcProvider;
let owner: { id: string; email: string };
let ownerClient: DashboardClient;

const unique = () => `i-${randomBase62(8).toLowerCase()}@example.com`;

async function signIn(email: string, password = PASSWORD): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  const { res } = await client.post('/dashboard/login', { email, password });
  expect(res.status).toBe(303);
  return client;
}

/** Invites through the Members page as the owner; returns the link shown once. */
async function invite(email: string, role = 'member'): Promise<string> {
  await ownerClient.get('/dashboard/members');
  const { res } = await ownerClient.post('/dashboard/members/invitations', { email, role });
  expect(res.status).toBe(303);
  const page = await ownerClient.get('/dashboard/members');
  const url = /<pre id="invite-link">([^<]+)<\/pre>/.exec(page.html)?.[1];
  expect(url).toBeTruthy();
  // Shown once: the next visit has no link.
  expect((await ownerClient.get('/dashboard/members')).html).not.toContain(url!);
  return url!;
}

const pathOf = (url: string) => new URL(url).pathname;
const roleIn = (accountId: string, userEmail: string) =>
  t.services.members.listMembers(accountId).then((members) => members.find((m) => m.email === userEmail)?.role);
const events = (action: string) => t.services.audit.listEvents(owner.id).then((list) => list.filter((e) => e.action === action));

beforeAll(async () => {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(`${baseUrl}${CALLBACK}`);
  t = await buildTestApp({
    env: { PORT: String(port), BASE_URL: baseUrl, DASHBOARD_SIGNUP: 'invite', OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret },
  });
  const account = await createAccount(t.services, { email: unique(), password: PASSWORD, planId: 'pro' });
  owner = { id: account.id, email: account.email };
  ownerClient = await signIn(owner.email);
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

describe('invitations', () => {
  it('keeps only the hash of the link, valid 7 days, and is accepted by a signed-in user with that email, once', async () => {
    const other = await createAccount(t.services, { email: unique(), password: PASSWORD });
    const url = await invite(other.email, 'viewer');
    const token = url.split('/').pop()!;
    const row = await t.handle.db.selectFrom('invitations').selectAll().where('email', '=', other.email).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(7 * 24 * 60 * 60 * 1000);

    const guest = await signIn(other.email);
    const page = await guest.get(pathOf(url));
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('Accept and join');
    const accepted = await guest.post(`${pathOf(url)}/accept`, {});
    expect(accepted.res.status).toBe(303);
    expect(await roleIn(owner.id, other.email)).toBe('viewer');
    // The session now acts in the account joined, and the switcher offers both.
    const forms = await guest.get('/dashboard/forms');
    expect(forms.html).toContain('(viewer)');
    expect(forms.html).toContain('id="account-switcher"');
    const [event] = await events('invitation.accepted');
    expect(event).toMatchObject({ actor: { type: 'user', id: other.id, label: other.email }, details: { email: other.email, role: 'viewer' } });

    // Single use.
    expect((await guest.get(pathOf(url))).res.status).toBe(410);
    await guest.get('/dashboard/account');
    expect((await guest.post(`${pathOf(url)}/accept`, {})).res.status).toBe(410);
  });

  it('refuses a signed-in user with another email', async () => {
    const url = await invite(unique());
    const stranger = await createAccount(t.services, { email: unique(), password: PASSWORD });
    const client = await signIn(stranger.email);
    await client.get(pathOf(url));
    const { res, html } = await client.post(`${pathOf(url)}/accept`, {});
    expect(res.status).toBe(403);
    expect(html).toContain('This invitation is for');
    expect(await t.services.members.findRole(owner.id, stranger.id)).toBeUndefined();
  });

  it('lets a new person sign up with the invitation when sign-up is invite-only, and nobody without one', async () => {
    expect((await new DashboardClient(t).get('/dashboard/signup')).res.status).toBe(404);
    const email = unique();
    const url = await invite(email, 'member');
    const accountsBefore = (await t.services.admin.listAccounts()).length;
    const newcomer = new DashboardClient(t);
    const page = await newcomer.get(pathOf(url));
    expect(page.html).toContain('Create my login and join');
    const short = await newcomer.post(`${pathOf(url)}/signup`, { displayName: 'New Person', password: 'short' });
    expect(short.res.status).toBe(400);
    const { res } = await newcomer.post(`${pathOf(url)}/signup`, { displayName: 'New Person', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/forms');
    expect((await newcomer.get('/dashboard/forms')).html).toContain('(member)');
    expect(await roleIn(owner.id, email)).toBe('member');
    // A member of the inviting account, with no account of their own.
    expect((await t.services.admin.listAccounts()).length).toBe(accountsBefore);
    // The login works afterwards too.
    await signIn(email);
  });

  it('accepts by the link page\'s single sign-on button whose verified email is the invited one, and never an unverified one', async () => {
    const email = unique();
    const url = await invite(email, 'viewer');
    const unverified = await oidcSignIn({ sub: `sub-${randomBase62(6)}`, email, email_verified: false, name: 'Unverified' });
    expect(unverified.res.status).toBe(403);
    expect(await roleIn(owner.id, email)).toBeUndefined();

    // Signing in shows the invitation; it joins nothing by itself.
    const identity = { sub: `sub-${randomBase62(6)}`, email, email_verified: true, name: 'Verified' };
    const shown = await oidcSignIn(identity);
    expect(shown.res.status).toBe(200);
    expect(shown.html).toContain(`Join ${owner.email} as viewer`);
    expect(await roleIn(owner.id, email)).toBeUndefined();

    const browser = new DashboardClient(t);
    const page = await browser.get(pathOf(url));
    const invitationId = /name="invitationId" value="([^"]+)"/.exec(page.html)?.[1];
    expect(invitationId).toBeTruthy();
    const start = await browser.post('/dashboard/auth/oidc/accept', { invitationId: invitationId! });
    const verified = await throughProvider(browser, start.res, identity);
    expect(verified.res.status).toBe(303);
    expect(await roleIn(owner.id, email)).toBe('viewer');
    expect((await browser.get('/dashboard/forms')).html).toContain('(viewer)');
  });

  it('refuses an expired and a revoked invitation', async () => {
    const expiredEmail = unique();
    const expiredUrl = await invite(expiredEmail);
    await t.handle.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('email', '=', expiredEmail).execute();
    const expired = await new DashboardClient(t).get(pathOf(expiredUrl));
    expect(expired.res.status).toBe(410);
    expect(expired.html).toContain('expired');
    const late = new DashboardClient(t);
    await late.get('/dashboard/login');
    expect((await late.post(`${pathOf(expiredUrl)}/signup`, { password: PASSWORD })).res.status).toBe(410);

    const revokedEmail = unique();
    const revokedUrl = await invite(revokedEmail);
    const pending = await t.services.members.listInvitations(owner.id);
    const id = pending.find((i) => i.email === revokedEmail)!.id;
    await ownerClient.get('/dashboard/members');
    expect((await ownerClient.post(`/dashboard/members/invitations/${id}/revoke`, {})).res.status).toBe(303);
    const revoked = await new DashboardClient(t).get(pathOf(revokedUrl));
    expect(revoked.res.status).toBe(410);
    expect(revoked.html).toContain('revoked');
    expect((await events('invitation.revoked')).some((e) => e.target?.id === id)).toBe(true);
  });
});

describe('roles, leaving and handing over ownership', () => {
  it('lets a member leave (the owner only after a handover) and hands ownership over', async () => {
    const account = await createAccount(t.services, { email: unique(), password: PASSWORD, planId: 'pro' });
    const apiKey = (await t.services.apiKeys.createApiKey(account.id, 'k')).apiKey;
    const adminEmail = unique();
    await t.services.members.add(account.id, { email: adminEmail, role: 'admin', password: PASSWORD });
    const first = await signIn(account.email);
    await first.get('/dashboard/members');
    expect((await first.post('/dashboard/members/leave', { confirm: '1' })).res.status).toBe(403);

    const handover = await first.post('/dashboard/members/transfer', { email: adminEmail, confirm: '1' });
    expect(handover.res.status).toBe(303);
    expect(await roleIn(account.id, adminEmail)).toBe('owner');
    expect(await roleIn(account.id, account.email)).toBe('admin');
    // GET /v1/api/me names the account's owner.
    const me = await t.fetch('/v1/api/me', { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await me.json()) as { user: { id: string; email: string } }).user).toMatchObject({ id: account.id, email: adminEmail });
    // The former owner's very next request has the admin's rights only.
    await first.get('/dashboard/account');
    expect((await first.post('/dashboard/account/delete', { confirmEmail: adminEmail, currentPassword: PASSWORD })).res.status).toBe(403);
    const transferred = (await t.services.audit.listEvents(account.id)).find((e) => e.action === 'ownership.transferred');
    expect(transferred).toMatchObject({ actor: { type: 'user', id: account.id }, details: { to: adminEmail } });

    // Now they can leave; with no other account their session opens nothing.
    await first.get('/dashboard/members');
    expect((await first.post('/dashboard/members/leave', { confirm: '1' })).res.status).toBe(303);
    expect(await roleIn(account.id, account.email)).toBeUndefined();
    const after = await first.get('/dashboard/forms');
    expect(after.res.status).toBe(303);
    expect(after.res.headers.get('location')).toBe('/dashboard/login');
  });

  it('writes no audit event for a refused change', async () => {
    const before = (await t.services.audit.listEvents(owner.id)).length;
    await expect(t.services.members.setRole(owner.id, { email: owner.email }, 'viewer')).rejects.toMatchObject({ code: 'access_denied' });
    await expect(t.services.members.remove(owner.id, { email: owner.email })).rejects.toMatchObject({ code: 'access_denied' });
    const email = unique();
    await t.services.members.add(owner.id, { email, role: 'viewer', password: PASSWORD });
    // Adding the same person twice fails inside the transaction: no second event.
    await expect(t.services.members.add(owner.id, { email, role: 'member' })).rejects.toMatchObject({ code: 'validation_failed' });
    const list = await t.services.audit.listEvents(owner.id);
    expect(list.length).toBe(before + 1);
    expect(list[0]).toMatchObject({ action: 'member.added', details: { email, role: 'viewer' } });
  });
});

describe('invitations are capped', () => {
  it(`an account makes at most ${INVITATIONS_PER_DAY} a day, so it cannot mail strangers in bulk; other accounts are not held back`, async () => {
    const capped = await createAccount(t.services, { email: unique(), password: PASSWORD });
    for (let i = 0; i < INVITATIONS_PER_DAY; i++) await t.services.members.invite(capped.id, { email: unique(), role: 'viewer' });
    const refused = t.services.members.invite(capped.id, { email: unique(), role: 'viewer' });
    await expect(refused).rejects.toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '86400' } });
    expect(await t.handle.db.selectFrom('invitations').select('id').where('account_id', '=', capped.id).execute()).toHaveLength(INVITATIONS_PER_DAY);
    const other = await createAccount(t.services, { email: unique(), password: PASSWORD });
    await expect(t.services.members.invite(other.id, { email: unique(), role: 'viewer' })).resolves.toMatchObject({ invitation: { state: 'pending' } });
  });
});

async function oidcSignIn(identity: TestIdentity) {
  const browser = new DashboardClient(t);
  const start = await browser.get('/dashboard/auth/oidc');
  return { browser, ...(await throughProvider(browser, start.res, identity)) };
}

/** Follows a redirect to the provider, signed in there as `identity`, and back to the callback. */
async function throughProvider(browser: DashboardClient, start: Response, identity: TestIdentity) {
  provider.signInAs(identity);
  const jar = new DashboardClient(provider.issuer);
  let location = start.headers.get('location')!;
  while (location.startsWith(`${provider.issuer}/`)) {
    const { res } = await jar.get(location.slice(provider.issuer.length));
    location = new URL(res.headers.get('location')!, provider.issuer).href;
  }
  return browser.get(location.slice(t.config.baseUrl.length));
}
