import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, freePort, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount } from '../helpers/factories.js';
import { callbackOfTrip, startOidcProvider, type TestIdentity, type TestOidcProvider } from '../helpers/oidc-provider.js';

const CALLBACK = '/dashboard/auth/oidc/callback';

let t: AppUnderTest;
let provider: TestOidcProvider;

beforeAll(async () => {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(`${baseUrl}${CALLBACK}`);
  t = await buildTestApp({
    env: {
      PORT: String(port),
      BASE_URL: baseUrl,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_DISPLAY_NAME: 'Sign in with Example SSO',
    },
  });
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});
afterEach(async () => {
  provider.tamperWithIdTokens(undefined);
  await t.services.admin.setSignupOpen(true);
});

let people = 0;
function person(overrides: Partial<TestIdentity> = {}): TestIdentity {
  people += 1;
  return { sub: `subject-${people}`, email: `person-${people}-${Date.now()}@example.com`, email_verified: true, name: `Person ${people}`, ...overrides };
}

/** Follows the redirects through the provider; returns where the provider sends the browser back. */
const throughProvider = (start: Response): Promise<string> => callbackOfTrip(provider, t.config.baseUrl, start);

/** One sign-in as `identity`; the callback's answer and the browser that made it. */
async function signIn(identity: TestIdentity | 'cancel'): Promise<{ browser: DashboardClient; res: Response; html: string; callback: string; pendingCookie: string }> {
  if (identity === 'cancel') provider.cancelNextSignIn();
  else provider.signInAs(identity);
  const browser = new DashboardClient(t);
  const start = await browser.get('/dashboard/auth/oidc');
  const pendingCookie = browser.cookies.get('fg_oidc')!;
  expect(pendingCookie).toBeTruthy();
  const callback = await throughProvider(start.res);
  const { res, html } = await browser.get(callback);
  return { browser, res, html, callback, pendingCookie };
}

async function signedInAs(browser: DashboardClient): Promise<string | undefined> {
  const { res, html } = await browser.get('/dashboard/account');
  if (res.status !== 200) return undefined;
  return /Signed in as <strong>([^<]+)<\/strong>/.exec(html)?.[1];
}

async function identityRows(): Promise<Array<{ subject: string; account_id: string; email: string }>> {
  // The user an identity signs in: for a user made with their account, the account's ID.
  const rows = await t.handle.db.selectFrom('sso_identities').select(['subject', 'user_id', 'email']).orderBy('subject').execute();
  return rows.map(({ subject, user_id, email }) => ({ subject, account_id: user_id, email }));
}

describe('single sign-on through an OpenID Connect provider', () => {
  it('links the first sign-in to the account with the same verified and confirmed email, then finds it by (issuer, sub)', async () => {
    const account = await createAccount(t.services, { password: 'a good long password', emailConfirmed: true });
    const ada = person({ email: account.email });
    const first = await signIn(ada);
    expect(first.res.status).toBe(303);
    expect(first.res.headers.get('location')).toBe('/dashboard/forms');
    expect(await signedInAs(first.browser)).toBe(account.email);
    expect((await identityRows()).filter((row) => row.subject === ada.sub)).toEqual([{ subject: ada.sub, account_id: account.id, email: account.email }]);
    const [signedIn] = await t.services.audit.listEvents(account.id, { action: 'sign_in' });
    expect(signedIn).toMatchObject({ actor: { type: 'user', id: account.id, label: account.email }, address: '127.0.0.1', details: { method: 'sso' } });

    // The provider now knows her by another address: the link is (issuer, sub), not the email.
    const moved = await signIn({ ...ada, email: `moved-${ada.email}` });
    expect(moved.res.status).toBe(303);
    expect(await signedInAs(moved.browser)).toBe(account.email);
    expect((await identityRows()).find((row) => row.subject === ada.sub)?.email).toBe(`moved-${ada.email}`);
  });

  it('creates an account for a new verified address while sign-up is open, and refuses when it is closed', async () => {
    const grace = person();
    const created = await signIn(grace);
    expect(created.res.status).toBe(303);
    const account = await t.services.accounts.findAccountByEmail(grace.email);
    expect(account).toMatchObject({ email: grace.email, displayName: grace.name });
    expect(await signedInAs(created.browser)).toBe(grace.email);

    await t.services.admin.setSignupOpen(false);
    const closed = person();
    const refused = await signIn(closed);
    expect(refused.res.status).toBe(403);
    expect(refused.html).toContain(`There is no account for ${closed.email} on this server, and sign-up is closed.`);
    expect(refused.browser.cookies.has('fg_session')).toBe(false);
    expect(await t.services.accounts.findAccountByEmail(closed.email)).toBeUndefined();
  });

  it('refuses an unverified email: it neither links to the account with that address nor signs in', async () => {
    const account = await createAccount(t.services, { password: 'a good long password' });
    const mallory = person({ email: account.email, email_verified: false });
    const { res, html, browser } = await signIn(mallory);
    expect(res.status).toBe(403);
    expect(html).toContain('Your email address is not verified at the sign-in provider');
    expect(await signedInAs(browser)).toBeUndefined();
    expect((await identityRows()).some((row) => row.subject === mallory.sub)).toBe(false);
  });

  it('no longer links to an address changed on the Account page without a link to confirm it (no SMTP here)', async () => {
    const account = await createAccount(t.services, { password: 'a good long password', emailConfirmed: true });
    const browser = new DashboardClient(t);
    await browser.get('/dashboard/login');
    expect((await browser.post('/dashboard/login', { email: account.email, password: 'a good long password' })).res.status).toBe(303);
    await browser.get('/dashboard/account');
    const moved = `moved-${account.email}`;
    expect((await browser.post('/dashboard/account/email', { email: moved, currentPassword: 'a good long password' })).res.status).toBe(303);
    const claimant = person({ email: moved });
    const { res, html } = await signIn(claimant);
    expect(res.status).toBe(409);
    expect(html).toContain(`An account with the address ${moved} already exists`);
    expect((await identityRows()).some((row) => row.subject === claimant.sub)).toBe(false);
  });

  it('refuses an answer whose state is not the one this browser started with', async () => {
    const { browser, callback } = await (async () => {
      provider.signInAs(person());
      const b = new DashboardClient(t);
      const start = await b.get('/dashboard/auth/oidc');
      return { browser: b, callback: await throughProvider(start.res) };
    })();
    const forged = callback.replace(/state=[^&]+/, 'state=another-browsers-state');
    const { res, html } = await browser.get(forged);
    expect(res.status).toBe(400);
    expect(html).toContain('does not belong to the sign-in this browser started');
    expect(await signedInAs(browser)).toBeUndefined();
  });

  it('refuses a replayed code, even with the cookie of the sign-in it came from', async () => {
    const first = await signIn(person());
    expect(first.res.status).toBe(303);
    const replay = new DashboardClient(t);
    replay.cookies.set('fg_oidc', first.pendingCookie);
    const { res, html } = await replay.get(first.callback);
    expect(res.status).toBe(400);
    expect(html).toContain('did not accept this sign-in');
    expect(await signedInAs(replay)).toBeUndefined();
  });

  it('refuses a callback without the sign-in cookie (expired, or another browser)', async () => {
    const first = await signIn(person());
    const stranger = new DashboardClient(t);
    const { res, html } = await stranger.get(first.callback);
    expect(res.status).toBe(400);
    expect(html).toContain('started too long ago, or in another browser');
  });

  it.each([
    ['an expired ID token', (claims: Record<string, unknown>) => ({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600 })],
    ['an ID token for another audience', (claims: Record<string, unknown>) => ({ ...claims, aud: 'another-client' })],
    ['an ID token with another nonce', (claims: Record<string, unknown>) => ({ ...claims, nonce: 'not-the-nonce' })],
  ])('refuses %s, signed with the provider’s own key', async (_name, change) => {
    provider.tamperWithIdTokens(change);
    const { res, html, browser } = await signIn(person());
    expect(res.status).toBe(502);
    expect(html).toContain('did not pass the checks');
    expect(await signedInAs(browser)).toBeUndefined();
  });

  it('accepts an ID token re-signed unchanged: the refusals above are the changes, not the re-signing', async () => {
    provider.tamperWithIdTokens((claims) => claims);
    const { res, browser } = await signIn(person());
    expect(res.status).toBe(303);
    expect(await signedInAs(browser)).toMatch(/^person-/);
  });

  it('says so when the person cancels at the provider', async () => {
    const { res, html, browser } = await signIn('cancel');
    expect(res.status).toBe(401);
    expect(html).toContain('The sign-in was cancelled at the provider.');
    expect(await signedInAs(browser)).toBeUndefined();
  });

  it('refuses a disabled account', async () => {
    const account = await createAccount(t.services, { emailConfirmed: true });
    await t.services.accounts.setDisabled(account.id, true);
    const { res, html } = await signIn(person({ email: account.email }));
    expect(res.status).toBe(403);
    expect(html).toContain('This account is disabled');
  });

  it('offers the provider’s button on the log-in and sign-up pages, beside the password form', async () => {
    const browser = new DashboardClient(t);
    for (const path of ['/dashboard/login', '/dashboard/signup']) {
      const { html } = await browser.get(path);
      expect(html).toContain('<a class="button primary" href="/dashboard/auth/oidc">Sign in with Example SSO</a>');
      expect(html).toContain('name="password"');
    }
  });
});

describe('PASSWORD_LOGIN=false', () => {
  let sso: AppUnderTest;
  beforeAll(async () => {
    sso = await buildTestApp({
      env: { PASSWORD_LOGIN: 'false', OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret },
    });
  });
  afterAll(async () => sso?.close());

  it('shows only single sign-on, and answers 404 to password log-in, sign-up and reset', async () => {
    const account = await createAccount(sso.services, { password: 'a good long password' });
    const browser = new DashboardClient(sso);
    const login = await browser.get('/dashboard/login');
    expect(login.res.status).toBe(200);
    expect(login.html).toContain('href="/dashboard/auth/oidc">Single sign-on</a>');
    expect(login.html).not.toContain('name="password"');
    expect(login.html).not.toContain('/dashboard/forgot-password');
    const post = await browser.post('/dashboard/login', { email: account.email, password: 'a good long password' });
    expect(post.res.status).toBe(404);
    expect(post.html).toContain('Password log-in is turned off on this server');
    for (const path of ['/dashboard/signup', '/dashboard/forgot-password', '/dashboard/reset-password/some-token']) {
      expect((await browser.get(path)).res.status, path).toBe(404);
    }
    expect(await signedInAs(browser)).toBeUndefined();
  });
});

describe('without single sign-on configured', () => {
  let plain: AppUnderTest;
  beforeAll(async () => {
    plain = await buildTestApp();
  });
  afterAll(async () => plain?.close());

  it('has no sign-on routes and no button', async () => {
    const browser = new DashboardClient(plain);
    expect((await browser.get('/dashboard/auth/oidc')).res.status).toBe(404);
    expect((await browser.get(`${CALLBACK}?code=x&state=y`)).res.status).toBe(404);
    expect((await browser.get('/dashboard/login')).html).not.toContain('/dashboard/auth/oidc');
  });
});
