import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { hashToken } from '../../src/platform/lib/token-hash.js';
import { startTestApp, freePort, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { followSsoTrip, startOidcProvider, type TestIdentity, type TestOidcProvider } from '../helpers/oidc-provider.js';

/**
 * A user who signs in by single sign-on only is never asked for a password: changing the email
 * or deleting the account needs a sign-on at the provider of the last five minutes instead.
 */
let t: TestApp;
let provider: TestOidcProvider;

beforeAll(async () => {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(`${baseUrl}/dashboard/auth/oidc/callback`);
  t = await startTestApp({ env: { PORT: String(port), BASE_URL: baseUrl, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret } });
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

const person = (): TestIdentity => {
  const email = `s-${randomBase62(8).toLowerCase()}@corp.example`;
  return { sub: `sub-${randomBase62(10)}`, email, email_verified: true, name: 'Sam' };
};

/** Signs up by single sign-on (open sign-up), then makes the session's sign-on ten minutes old. */
async function staleSsoSession(identity: TestIdentity): Promise<DashboardClient> {
  const browser = new DashboardClient(t.url);
  const start = await browser.get('/dashboard/auth/oidc');
  expect((await followSsoTrip(provider, t.url, browser, start.res, identity)).res.status).toBe(303);
  const tenMinutesAgo = new Date(Date.now() - 10 * 60_000).toISOString();
  await t.handle.db.updateTable('sessions').set({ signed_on_at: tenMinutesAgo }).where('id', '=', hashToken(browser.cookies.get('fg_session')!)).execute();
  return browser;
}

describe('a user without a password', () => {
  it('is asked for no password, and deletes the account only after a fresh sign-on of their own identity', async () => {
    const identity = person();
    const browser = await staleSsoSession(identity);
    const page = await browser.get('/dashboard/account');
    expect(page.res.status).toBe(200);
    expect(page.html).not.toContain('name="currentPassword"');
    expect(page.html).not.toContain('Change password');
    expect(page.html).toContain('Confirm with single sign-on');

    const stale = await browser.post('/dashboard/account/delete', { confirmEmail: identity.email });
    expect(stale.res.status).toBe(400);
    expect(stale.html).toContain('Confirm with single sign-on first');
    expect(await t.services.accounts.findUserByEmail(identity.email)).toBeDefined();

    // Someone else's identity at the provider confirms nothing.
    const stranger = person();
    const other = await followSsoTrip(provider, t.url, browser, (await browser.post('/dashboard/account/reauth', {})).res, stranger);
    expect(other.res.status).toBe(403);
    expect(other.html).toContain('not one linked to your login here');

    await browser.get('/dashboard/account');
    const back = await followSsoTrip(provider, t.url, browser, (await browser.post('/dashboard/account/reauth', {})).res, identity);
    expect(back.res.status).toBe(303);
    expect(back.res.headers.get('location')).toBe('/dashboard/account');
    const fresh = await browser.get('/dashboard/account');
    expect(fresh.html).toContain('Confirmed at single sign-on a moment ago');
    expect((await browser.post('/dashboard/account/delete', { confirmEmail: identity.email })).res.status).toBe(303);
    expect(await t.services.accounts.findUserByEmail(identity.email)).toBeUndefined();
  });

  it('changes the email only within five minutes of a sign-on', async () => {
    const identity = person();
    const browser = await staleSsoSession(identity);
    await browser.get('/dashboard/account');
    const newEmail = `n-${randomBase62(8).toLowerCase()}@corp.example`;
    const stale = await browser.post('/dashboard/account/email', { email: newEmail });
    expect(stale.res.status).toBe(400);
    expect(stale.html).toContain('Confirm with single sign-on first');
    await followSsoTrip(provider, t.url, browser, (await browser.post('/dashboard/account/reauth', {})).res, identity);
    await browser.get('/dashboard/account');
    // Without SMTP the change takes effect at once (unconfirmed); with SMTP it would wait for its link.
    expect((await browser.post('/dashboard/account/email', { email: newEmail })).res.status).toBe(303);
    expect(await t.services.accounts.findUserByEmail(newEmail)).toBeDefined();
  });
});
