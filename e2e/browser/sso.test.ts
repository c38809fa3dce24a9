import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { createAccount } from '../../test/helpers/factories.js';
import { startOidcProvider, type TestOidcProvider } from '../../test/helpers/oidc-provider.js';

let t: TestApp;
let provider: TestOidcProvider;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(`${baseUrl}/dashboard/auth/oidc/callback`);
  t = await startTestApp({
    env: { PORT: String(port), BASE_URL: baseUrl, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_DISPLAY_NAME: 'Sign in with Example SSO' },
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await provider?.close();
});

describe('single sign-on in Chromium', () => {
  it('the log-in page’s button goes through the provider and back into the dashboard', async () => {
    const account = await createAccount(t.services, { password: 'a good long password', emailConfirmed: true });
    provider.signInAs({ sub: 'chromium-person', email: account.email, email_verified: true, name: 'Chromium Person' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.url}/dashboard/login`);
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('text=Sign in with Example SSO')]);
    expect(await page.textContent('.who strong')).toBe(account.email);
    await context.close();
  });

  it('a cancelled sign-in ends on a page that says why, with a way to try again', async () => {
    provider.cancelNextSignIn();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.url}/dashboard/login`);
    await Promise.all([page.waitForURL(/\/dashboard\/auth\/oidc\/callback/), page.click('text=Sign in with Example SSO')]);
    expect(await page.textContent('h1')).toBe('Single sign-on did not work');
    expect(await page.textContent('main')).toContain('The sign-in was cancelled at the provider.');
    expect(await page.getAttribute('a:text("Try again")', 'href')).toBe('/dashboard/auth/oidc');
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
