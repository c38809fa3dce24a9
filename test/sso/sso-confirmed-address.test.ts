import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, freePort, type AppUnderTest } from '../helpers/app.js';
import { expectCsrfRefused } from '../helpers/csrf.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm } from '../helpers/factories.js';
import { followSsoTrip, startOidcProvider, type TestIdentity, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Single sign-on links to an existing user by address only once that address is confirmed, and
 * nobody joins an account without accepting its invitation themselves.
 */
const CALLBACK = '/dashboard/auth/oidc/callback';
const PASSWORD = 'correct horse battery';

let t: AppUnderTest;
let provider: TestOidcProvider;
let sink: SmtpSink;

beforeAll(async () => {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(`${baseUrl}${CALLBACK}`);
  sink = await startSmtpSink();
  t = await buildTestApp({
    env: { PORT: String(port), BASE_URL: baseUrl, SMTP_URL: sink.url, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret },
  });
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
  await sink?.close();
});
afterEach(async () => {
  await t.services.admin.setSignupMode('open');
});

const unique = (name = 'p') => `${name}-${randomBase62(8).toLowerCase()}@corp.example`;
const person = (email: string, overrides: Partial<TestIdentity> = {}): TestIdentity => ({ sub: `sub-${randomBase62(10)}`, email, email_verified: true, name: 'A Person', ...overrides });

/** Follows a redirect to the provider and back, signing in as `identity` there; returns the callback's answer. */
const viaProvider = (browser: DashboardClient, start: Response, identity: TestIdentity) => followSsoTrip(provider, t.config.baseUrl, browser, start, identity);

async function ssoSignIn(identity: TestIdentity, browser = new DashboardClient(t)) {
  const start = await browser.get('/dashboard/auth/oidc');
  return { browser, ...(await viaProvider(browser, start.res, identity)) };
}

async function passwordLogIn(email: string): Promise<DashboardClient> {
  const browser = new DashboardClient(t);
  await browser.get('/dashboard/login');
  expect((await browser.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  return browser;
}

async function signedInAs(browser: DashboardClient): Promise<string | undefined> {
  const { res, html } = await browser.get('/dashboard/account');
  return res.status === 200 ? /Signed in as <strong>([^<]+)<\/strong>/.exec(html)?.[1] : undefined;
}

const identityOwner = async (sub: string) =>
  (await t.handle.db.selectFrom('sso_identities').select('user_id').where('subject', '=', sub).executeTakeFirst())?.user_id;

/** The link in the last email to `address` that matches `pattern`, once it arrived. */
async function emailedLink(address: string, pattern: RegExp): Promise<string> {
  let link: string | undefined;
  await waitFor(() => {
    link = sink.to(address).map((mail) => pattern.exec(mail.parsed.text ?? '')?.[0]).filter(Boolean).at(-1);
    return link !== undefined;
  }, 10_000, `an email to ${address}`);
  return new URL(link!).pathname;
}

describe('an account nobody confirmed', () => {
  it('is not entered by single sign-on with its address, even a verified one: the page says how its owner links it', async () => {
    // Someone signs up on the dashboard with an address that is not theirs and makes a form.
    const victim = unique('victim');
    const squatter = new DashboardClient(t);
    await squatter.signUp(victim, PASSWORD);
    const account = (await t.services.accounts.findAccountByEmail(victim))!;
    const form = await createForm(t.services, account.id, { name: 'Planted form' });

    // The address's real owner signs in through the provider, which verified it.
    const owner = person(victim);
    const { res, html, browser } = await ssoSignIn(owner);
    expect(res.status).toBe(409);
    expect(html).toContain(`An account with the address ${victim} already exists`);
    expect(html).toContain('log in with its password and link single sign-on on the Account page');
    expect(browser.cookies.has('fg_session')).toBe(false);
    expect(await signedInAs(browser)).toBeUndefined();
    const forms = await browser.get(`/dashboard/forms/${form.id}/submissions`);
    expect(forms.res.status).toBe(303);
    expect(forms.res.headers.get('location')).toBe('/dashboard/login');
    expect(await identityOwner(owner.sub)).toBeUndefined();
    // A second try is refused the same way: nothing was linked the first time.
    expect((await ssoSignIn(owner)).res.status).toBe(409);
  });

  it('is linked once its owner used the emailed password-reset link', async () => {
    const email = unique();
    await new DashboardClient(t).signUp(email, PASSWORD);
    const user = (await t.services.accounts.findUserByEmail(email))!;
    const browser = new DashboardClient(t);
    await browser.get('/dashboard/forgot-password');
    expect((await browser.post('/dashboard/forgot-password', { email })).res.status).toBe(200);
    const reset = await emailedLink(email, /http:\/\/\S+\/dashboard\/reset-password\/[A-Za-z0-9_-]+/);
    await browser.get(reset);
    expect((await browser.post(reset, { password: 'a brand new password' })).res.status).toBe(200);

    const identity = person(email);
    const { res } = await ssoSignIn(identity);
    expect(res.status).toBe(303);
    expect(await identityOwner(identity.sub)).toBe(user.id);
  });

  it('is linked at the new address its owner confirmed by the emailed link of an email change', async () => {
    const email = unique();
    const moved = unique('moved');
    const owner = new DashboardClient(t);
    await owner.signUp(email, PASSWORD);
    await owner.get('/dashboard/account');
    expect((await owner.post('/dashboard/account/email', { email: moved, currentPassword: PASSWORD })).res.status).toBe(303);
    // Until the link is used, the address is unchanged and still nobody's proven one.
    expect((await ssoSignIn(person(email))).res.status).toBe(409);
    const confirm = await emailedLink(moved, /http:\/\/\S+\/dashboard\/confirm-email\/[A-Za-z0-9_-]+/);
    await owner.get(confirm);
    expect((await owner.post(confirm, {})).res.status).toBe(200);

    const identity = person(moved);
    const { res, browser } = await ssoSignIn(identity);
    expect(res.status).toBe(303);
    expect(await signedInAs(browser)).toBe(moved);
  });

  it('links single sign-on from the Account page after the password, whatever address the provider sends', async () => {
    const email = unique();
    const user = await createAccount(t.services, { email, password: PASSWORD });
    const browser = await passwordLogIn(email);
    const page = await browser.get('/dashboard/account');
    expect(page.html).toContain('Not linked yet');
    await expectCsrfRefused(browser, '/dashboard/account/sso', { currentPassword: PASSWORD });
    await browser.get('/dashboard/account');
    const wrong = await browser.post('/dashboard/account/sso', { currentPassword: 'not the password' });
    expect(wrong.res.status).toBe(400);
    expect(wrong.html).toContain('That is not your current password');

    const identity = person(unique('elsewhere'));
    await browser.get('/dashboard/account');
    const start = await browser.post('/dashboard/account/sso', { currentPassword: PASSWORD });
    const back = await viaProvider(browser, start.res, identity);
    expect(back.res.status).toBe(303);
    expect(back.res.headers.get('location')).toBe('/dashboard/account');
    expect(await identityOwner(identity.sub)).toBe(user.id);
    expect((await browser.get('/dashboard/account')).html).toContain(`<strong class="linked-identity">${identity.email}</strong>`);
    // From now on the provider's sign-in opens this login.
    expect(await signedInAs((await ssoSignIn(identity)).browser)).toBe(email);
    // Another person's answer cannot be linked to someone else's login.
    const other = await passwordLogIn((await createAccount(t.services, { email: unique(), password: PASSWORD })).email);
    await other.get('/dashboard/account');
    const taken = await viaProvider(other, (await other.post('/dashboard/account/sso', { currentPassword: PASSWORD })).res, identity);
    expect(taken.res.status).toBe(409);
    expect(await identityOwner(identity.sub)).toBe(user.id);
  });

  it('links nothing when the browser that comes back is not signed in as the user who started', async () => {
    const email = unique();
    await createAccount(t.services, { email, password: PASSWORD });
    const browser = await passwordLogIn(email);
    await browser.get('/dashboard/account');
    const start = await browser.post('/dashboard/account/sso', { currentPassword: PASSWORD });
    browser.cookies.delete('fg_session');
    const identity = person(unique());
    const back = await viaProvider(browser, start.res, identity);
    expect(back.res.status).toBe(400);
    expect(back.html).toContain('Linking single sign-on needs the login that started it');
    expect(await identityOwner(identity.sub)).toBeUndefined();
  });
});

describe('a user whose address is confirmed', () => {
  it('is linked on single sign-on when the operator made them (Admin page, CLI members add)', async () => {
    const byAdmin = await t.services.admin.createAccount({ email: unique(), password: PASSWORD });
    const host = await createAccount(t.services);
    const added = await t.services.members.add(host.id, { email: unique(), role: 'viewer', password: PASSWORD });
    if (!('member' in added)) throw new Error('expected a member');
    for (const [id, email] of [[byAdmin.id, byAdmin.email], [added.member.userId, added.member.email]] as const) {
      const identity = person(email);
      const { res, browser } = await ssoSignIn(identity);
      expect(res.status, email).toBe(303);
      expect(await signedInAs(browser)).toBe(email);
      expect(await identityOwner(identity.sub)).toBe(id);
    }
  });
});

describe('invitations at a first single sign-on', () => {
  it('are shown, and each joins only by its own accepted POST, with the invited role', async () => {
    const host = await createAccount(t.services, { email: unique('host') });
    const second = await createAccount(t.services, { email: unique('second') });
    const email = unique('invited');
    await t.services.members.invite(host.id, { email, role: 'member' });
    await t.services.members.invite(second.id, { email, role: 'viewer' });
    await t.services.admin.setSignupMode('invite');

    const identity = person(email);
    const { res, html, browser } = await ssoSignIn(identity);
    expect(res.status).toBe(200);
    expect(html).toContain(`Join ${host.email} as member`);
    expect(html).toContain(`Join ${second.email} as viewer`);
    expect(browser.cookies.has('fg_session')).toBe(false);
    expect(await t.services.accounts.findUserByEmail(email)).toBeUndefined();
    await expectCsrfRefused(browser, '/dashboard/auth/oidc/accept', { invitationId: 'inv_none' });
    expect(await t.services.accounts.findUserByEmail(email)).toBeUndefined();

    await browser.get('/dashboard/login');
    // The host's by its account: both invitations may carry the same millisecond.
    const first = (await t.services.members.listWaitingInvitations(email)).find((invitation) => invitation.accountId === host.id);
    const start = await browser.post('/dashboard/auth/oidc/accept', { invitationId: first!.id });
    const joined = await viaProvider(browser, start.res, identity);
    expect(joined.res.status).toBe(303);
    // The other invitation still waits for its own click.
    expect(joined.res.headers.get('location')).toBe('/dashboard/invitations');
    const user = (await t.services.accounts.findUserByEmail(email))!;
    expect(await t.services.members.listMemberships(user.id)).toEqual([{ accountId: host.id, accountEmail: host.email, teamName: host.email, role: 'member' }]);

    const waiting = await browser.get('/dashboard/invitations');
    expect(waiting.html).toContain(`Join ${second.email} as viewer`);
    expect(waiting.html).not.toContain(`Join ${host.email}`);
    const [other] = await t.services.members.listWaitingInvitations(email, user.id);
    await expectCsrfRefused(browser, `/dashboard/invitations/${other!.id}/accept`);
    expect((await t.services.members.listMemberships(user.id)).map((m) => m.accountId)).toEqual([host.id]);
    await browser.get('/dashboard/invitations');
    const accepted = await browser.post(`/dashboard/invitations/${other!.id}/accept`, {});
    expect(accepted.res.status).toBe(303);
    expect(accepted.res.headers.get('location')).toBe('/dashboard/forms');
    expect(await t.services.members.findRole(second.id, user.id)).toBe('viewer');
  });

  it('are shown to a user who already has an account, who joins nothing until they accept', async () => {
    const host = await createAccount(t.services, { email: unique('host') });
    const email = unique('member');
    const identity = person(email);
    expect((await ssoSignIn(identity)).res.status).toBe(303);
    const user = (await t.services.accounts.findUserByEmail(email))!;
    await t.services.members.invite(host.id, { email, role: 'admin' });

    const { res, browser } = await ssoSignIn(identity);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/invitations');
    expect(await t.services.members.findRole(host.id, user.id)).toBeUndefined();
    const [invitation] = await t.services.members.listWaitingFor(user);
    await browser.get('/dashboard/invitations');
    expect((await browser.post(`/dashboard/invitations/${invitation!.id}/accept`, {})).res.status).toBe(303);
    expect(await t.services.members.findRole(host.id, user.id)).toBe('admin');
  });

  it('are not listed to a password sign-up with the invited address: only the emailed link accepts for it', async () => {
    const host = await createAccount(t.services, { email: unique('host') });
    const email = unique('claimed');
    await t.services.members.invite(host.id, { email, role: 'admin' });
    const squatter = new DashboardClient(t);
    await squatter.get('/dashboard/signup');
    const signUp = await squatter.post('/dashboard/signup', { email, displayName: 'Squatter', password: PASSWORD });
    expect(signUp.res.headers.get('location')).toBe('/dashboard/forms');
    const page = await squatter.get('/dashboard/invitations');
    expect(page.html).toContain('accepted only through the link in their email');
    const [invitation] = await t.services.members.listWaitingInvitations(email);
    await squatter.get('/dashboard/invitations');
    expect((await squatter.post(`/dashboard/invitations/${invitation!.id}/accept`, {})).res.status).toBe(403);
    expect(await t.services.members.listMembers(host.id)).toHaveLength(1);
  });

  it('with sign-up by invitation and none waiting, the page names the address that arrived', async () => {
    await t.services.admin.setSignupMode('invite');
    const email = unique('alice');
    const { res, html } = await ssoSignIn(person(email));
    expect(res.status).toBe(403);
    expect(html).toContain(`No account for ${email}; sign-up on this server is by invitation.`);
    expect(await t.services.accounts.findUserByEmail(email)).toBeUndefined();
  });
});
