import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { createApiKey, createForm } from '../../test/helpers/factories.js';

// The instance admin (the first account) in Chromium.
let t: TestApp;
let browser: Browser;
let adminPage: Page;
let userPage: Page;
const ADMIN = 'admin@example.com';
const USER = 'user@example.com';
const PASSWORD = 'a long enough password';

async function signUp(page: Page, email: string): Promise<void> {
  await page.goto(`${t.url}/dashboard/signup`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=displayName]', email.split('@')[0]!);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
}

async function logIn(page: Page, email: string): Promise<number> {
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', PASSWORD);
  const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/dashboard/login') && r.request().method() === 'POST'), page.click('button.primary')]);
  await page.waitForLoadState('load');
  return response.status();
}

/** Every page the admin visited: audited with axe-core at the end. */
const visited = new Set<string>();
const settle = (page: Page, click: Promise<unknown>) => Promise.all([page.waitForLoadState('load'), click]);
const rowOf = (email: string) => `tr[data-account="${email}"]`;

beforeAll(async () => {
  t = await startTestApp({ baseUrlIsOwnAddress: true });
  browser = await launchChromium();
  adminPage = await (await browser.newContext()).newPage();
  adminPage.on('framenavigated', (frame) => {
    if (frame === adminPage.mainFrame()) visited.add(frame.url());
  });
  userPage = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await signUp(adminPage, ADMIN);
  await signUp(userPage, USER);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the instance admin', () => {
  it('the first account is the admin; a later one is not and is told to ask the admin about hooks', async () => {
    expect((await t.services.accounts.findUserByEmail(ADMIN))!.isAdmin).toBe(true);
    expect((await t.services.accounts.findUserByEmail(USER))!.isAdmin).toBe(false);
    expect(await adminPage.isVisible('nav a[href="/dashboard/admin"]')).toBe(true);
    expect(await userPage.isVisible('nav a[href="/dashboard/admin"]')).toBe(false);
    await userPage.goto(`${t.url}/dashboard/hooks`);
    expect(await userPage.textContent('#plan-note')).toContain("Ask this instance's admin to change your plan.");
    expect(await seriousViolations(userPage)).toEqual([]); // the other account's pages, at 390 px
    const refused = await userPage.goto(`${t.url}/dashboard/admin`);
    expect(refused!.status()).toBe(404);
    expect(await seriousViolations(userPage)).toEqual([]);
  });

  it('lists accounts with plan, forms, submissions and created; shows the instance health', async () => {
    const user = await t.services.accounts.getAccountByIdOrEmail(USER);
    const form = await createForm(t.services, user.id, {});
    await fetch(`${t.url}/v1/submit/${form.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ m: 'hello' }) });
    await adminPage.goto(`${t.url}/dashboard/admin`);
    const row = (await adminPage.textContent(rowOf(USER)))!;
    expect(row).toContain('free');
    expect(await adminPage.textContent(`${rowOf(USER)} td[data-label=Forms]`)).toBe('1');
    expect(await adminPage.textContent(`${rowOf(USER)} td[data-label=Submissions]`)).toBe('1');
    expect(await adminPage.textContent('#health-database')).toContain('ok');
    expect(await adminPage.textContent('#health-redis')).toBe('off');
    expect(await adminPage.textContent('#health-smtp')).toContain('off');
    expect(await adminPage.textContent('#health-outbox')).toMatch(/^\d+$/);
    expect(await adminPage.textContent('#health-version')).toMatch(/^\d+\.\d+\.\d+/);
    await t.services.lifecycle.purgeExpiredSubmissions();
    await adminPage.reload();
    expect(await adminPage.textContent('#health-purge')).toContain('0 deleted');
    await adminPage.screenshot({ path: `/tmp/dashboard-admin-${testDialect}.png`, fullPage: true });
  });

  it('sets a plan: the user can then create hooks', async () => {
    await adminPage.selectOption(`${rowOf(USER)} select[name=plan]`, 'pro');
    await Promise.all([adminPage.waitForURL(`${t.url}/dashboard/admin`), adminPage.click(`${rowOf(USER)} button:has-text("Set plan")`)]);
    expect(await adminPage.textContent('.notice')).toBe(`${USER} is now on pro.`);
    expect((await t.services.accounts.getAccountByIdOrEmail(USER)).planId).toBe('pro');
    await userPage.goto(`${t.url}/dashboard/hooks`);
    expect(await userPage.isVisible('#plan-note')).toBe(false);
  });

  it('a disabled account cannot log in and its API keys answer 401; enabling gives both back', async () => {
    const user = await t.services.accounts.getAccountByIdOrEmail(USER);
    const key = await createApiKey(t.services, user.id);
    const api = () => fetch(`${t.url}/v1/api/hooks`, { headers: { authorization: `Bearer ${key}` } });
    expect((await api()).status).toBe(200);
    await Promise.all([adminPage.waitForURL(`${t.url}/dashboard/admin`), adminPage.click(`${rowOf(USER)} button:has-text("Disable")`)]);
    expect(await adminPage.textContent(rowOf(USER))).toContain('disabled');
    expect((await api()).status).toBe(401);
    // The session it had is gone too.
    await userPage.goto(`${t.url}/dashboard/forms`);
    expect(userPage.url()).toBe(`${t.url}/dashboard/login`);
    expect(await logIn(userPage, USER)).toBe(403);
    expect(await userPage.textContent('.error')).toContain('This account is disabled');
    expect(await seriousViolations(userPage)).toEqual([]);

    await Promise.all([adminPage.waitForURL(`${t.url}/dashboard/admin`), adminPage.click(`${rowOf(USER)} button:has-text("Enable")`)]);
    expect((await api()).status).toBe(200);
    expect(await logIn(userPage, USER)).toBe(303);
    expect(userPage.url()).toBe(`${t.url}/dashboard/forms`);
  });

  it('closes and opens sign-up, overriding DASHBOARD_SIGNUP from the database', async () => {
    expect(await adminPage.textContent('#signup-state')).toContain('(from DASHBOARD_SIGNUP)');
    await Promise.all([adminPage.waitForURL(`${t.url}/dashboard/admin`), adminPage.click('button:has-text("Close sign-up")')]);
    expect(await adminPage.textContent('.notice')).toBe('Sign-up closed.');
    const fresh = await (await browser.newContext()).newPage();
    expect((await fresh.goto(`${t.url}/dashboard/signup`))!.status()).toBe(404);
    expect(await seriousViolations(fresh)).toEqual([]);
    await Promise.all([adminPage.waitForURL(`${t.url}/dashboard/admin`), adminPage.click('button:has-text("Open sign-up")')]);
    expect((await fresh.goto(`${t.url}/dashboard/signup`))!.status()).toBe(200);
    await fresh.context().close();
  });

  it('deletes an account after a confirmation; never its own', async () => {
    expect(await adminPage.textContent(rowOf(ADMIN))).toContain('you');
    await Promise.all([adminPage.waitForURL(/\/delete$/), adminPage.click(`${rowOf(USER)} a:has-text("Delete…")`)]);
    expect(await adminPage.textContent('h1')).toBe(`Delete ${USER}?`);
    await Promise.all([adminPage.waitForURL(`${t.url}/dashboard/admin`), adminPage.click('button:has-text("Delete account")')]);
    expect(await adminPage.textContent('.notice')).toBe(`${USER} was deleted.`);
    expect(await t.services.accounts.findAccountByEmail(USER)).toBeUndefined();
    const self = await t.services.accounts.getAccountByIdOrEmail(ADMIN);
    await expect(t.services.admin.deleteAccount(self.id, self.id)).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('set-admin marks another account an admin, and --off takes it back', async () => {
    const other = await t.services.accounts.createAccount({ email: 'second@example.com', password: PASSWORD });
    expect((await t.services.accounts.getUser(other.id)).isAdmin).toBe(false);
    expect((await t.services.accounts.setAdmin('second@example.com', true)).user.isAdmin).toBe(true);
    expect((await t.services.accounts.getUser(other.id)).isAdmin).toBe(true);
    await t.services.accounts.setAdmin(other.id, false);
    expect((await t.services.accounts.getUser(other.id)).isAdmin).toBe(false);
  });

  it('every page the admin visited has no serious or critical axe-core violation', async () => {
    expect(visited.size).toBeGreaterThan(2);
    const failing: string[] = [];
    for (const url of visited) {
      await adminPage.goto(url);
      for (const violation of await seriousViolations(adminPage)) failing.push(`${new URL(url).pathname}: ${violation}`);
    }
    expect(failing).toEqual([]);
  });
});
