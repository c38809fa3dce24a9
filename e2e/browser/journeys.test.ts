import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { accessibilityAudit } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { insertSubmissions } from '../../test/helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.js';
import { submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

// The payloads of the existing XSS test, now through the search box, results, chart, hooks and account pages.
const XSS = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '"><svg onload=alert(1)>', "'-alert(1)-'"];

let t: TestApp;
let browser: Browser;
let receiver: HttpsReceiver;
let context: BrowserContext;
let page: Page;
const dialogs: string[] = [];
/** Axe-core on every page the journeys load. */
let audit: ReturnType<typeof accessibilityAudit>;
const EMAIL = 'grace@example.com';
const PASSWORD = 'compiler pioneer';
let formId = '';
let accountId = '';

async function newContext(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const ctx = await browser.newContext(options);
  const p = audit.watch(await ctx.newPage());
  p.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { context: ctx, page: p };
}

async function logIn(p: Page, email: string, password: string): Promise<void> {
  await p.goto(`${t.url}/dashboard/login`);
  await p.fill('input[name=email]', email);
  await p.fill('input[name=password]', password);
  await Promise.all([p.waitForURL(`${t.url}/dashboard/forms`), p.click('button.primary')]);
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
  audit = accessibilityAudit(t.url);
  browser = await launchChromium();
  ({ context, page } = await newContext({ timezoneId: 'America/New_York' }));
  await page.goto(`${t.url}/dashboard/signup`);
  await audit.check(page);
  await page.fill('input[name=email]', EMAIL);
  await page.fill('input[name=displayName]', 'Grace');
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
  await page.fill('input[name=name]', 'Support <b>desk</b>');
  await audit.check(page);
  await Promise.all([page.waitForURL(/\/settings$/), page.click('text=Create form')]);
  await audit.check(page);
  formId = /forms\/(frm_[0-9A-Za-z]+)\//.exec(page.url())![1]!;
  accountId = (await t.services.accounts.getAccountByIdOrEmail(EMAIL)).id;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

describe('everyday dashboard journeys in Chromium', () => {
  it('shows who is logged in and times in the viewer\'s zone, naming it', async () => {
    await submit(t, formId, { json: { email: 'first@example.com', message: 'hello' } });
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    expect(await page.textContent('.who')).toContain(EMAIL);
    expect(await page.textContent('#tz')).toContain('America/New_York');
    const time = page.locator('td time').first();
    const iso = (await time.getAttribute('datetime'))!;
    // Drawn by the server in the zone the page script reported.
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' })
        .formatToParts(new Date(iso))
        .map((p) => [p.type, p.value]),
    );
    const month = (n: string) => ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][Number(n) - 1];
    expect(await time.textContent()).toBe(`${Number(parts.day)} ${month(parts.month!)} ${parts.year}, ${parts.hour}:${parts.minute} ${parts.timeZoneName}`);
    expect(await time.getAttribute('title')).toBe(`${Number(iso.slice(8, 10))} ${month(iso.slice(5, 7))} ${iso.slice(0, 4)}, ${iso.slice(11, 16)} UTC`);
    expect(await page.textContent('td[data-label=Country]')).toContain('unknown');
    await audit.check(page);
  });

  it('finds submissions with the search box, with filters, and hostile text stays text', async () => {
    await insertSubmissions(t.services, formId, [
      { createdAt: new Date(Date.now() - 5000).toISOString(), payload: { email: 'ada@example.com', message: 'Refund for order 1234' } },
      { createdAt: new Date(Date.now() - 4000).toISOString(), payload: { message: 'Refund <script>alert(1)</script>', bio: XSS[1]! } },
      { createdAt: new Date(Date.now() - 3000).toISOString(), payload: { message: 'refund spam offer' }, isSpam: true },
      { createdAt: new Date(Date.now() - 2000).toISOString(), payload: { message: 'unrelated question' } },
    ]);
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    await page.fill('input[name=q]', 'refund');
    await Promise.all([page.waitForURL(/q=refund/), page.click('button:has-text("Search")')]);
    const rows = await page.locator('table.stacked tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows.join(' ')).toContain('<script>alert(1)</script>');
    expect(rows.join(' ')).not.toContain('unrelated');
    expect(await page.inputValue('input[name=q]')).toBe('refund');
    expect(await page.locator('img[src=x]').count()).toBe(0);
    await page.click('a:has-text("Spam (")');
    expect(await page.locator('table.stacked tbody tr').allTextContents()).toEqual([expect.stringContaining('refund spam offer')]);
    await audit.check(page);
    // Every payload through the search box: echoed as text, never run.
    for (const payload of XSS) {
      await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
      await page.fill('input[name=q]', payload);
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Search")')]);
      expect(await page.inputValue('input[name=q]')).toBe(payload);
    }
    // A bad date is a message by the field, with the rest kept.
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions?q=refund&from=2026-02-31`);
    expect(await page.textContent('#from-error')).toContain('Enter a date like');
    await audit.check(page);
    expect(await page.inputValue('input[name=q]')).toBe('refund');
    expect(dialogs).toEqual([]);
  });

  it('deletes selected rows after a confirmation and says how many went', async () => {
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions?q=refund`);
    const before = await t.services.submissionBrowser.summariseForms(accountId, [formId]);
    const boxes = page.locator('input[name=ids]');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Delete selected")')]);
    expect(await page.textContent('h1')).toBe('Delete 2 submissions?');
    await audit.check(page);
    await Promise.all([page.waitForURL(/q=refund/), page.click('button:has-text("Delete 2 submissions")')]);
    expect(await page.textContent('.notice')).toBe('Deleted 2 submissions.');
    await audit.check(page);
    expect(await page.locator('table.stacked tbody tr').count()).toBe(0);
    const after = await t.services.submissionBrowser.summariseForms(accountId, [formId]);
    expect(after.get(formId)!.inbox).toBe(before.get(formId)!.inbox - 2);
    // One submission: its own page asks too, and Cancel keeps it.
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    await Promise.all([page.waitForLoadState('load'), page.locator('td[data-label=From] a').first().click()]);
    await audit.check(page);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Delete submission")')]);
    expect(await page.textContent('h1')).toBe('Delete this submission?');
    await audit.check(page);
    await Promise.all([page.waitForLoadState('load'), page.click('a:has-text("Cancel")')]);
    expect((await t.services.submissionBrowser.summariseForms(accountId, [formId])).get(formId)!.inbox).toBe(after.get(formId)!.inbox);
  });

  it('draws the 30-day chart with the right counts, and the forms list shows them', async () => {
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000);
    await insertSubmissions(t.services, formId, [
      { createdAt: day(2).toISOString(), payload: { m: 'a' } },
      { createdAt: day(2).toISOString(), payload: { m: 'b' } },
      { createdAt: day(2).toISOString(), payload: { m: 'c' }, isSpam: true },
      { createdAt: day(45).toISOString(), payload: { m: 'too old for the chart' } },
    ]);
    const totals = (await t.services.submissionBrowser.summariseForms(accountId, [formId])).get(formId)!;
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    // Chart days are the viewer's (New York) days.
    const bar = page.locator(`svg.chart g.day[data-day="${new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(day(2))}"]`);
    expect(await bar.getAttribute('data-inbox')).toBe('2');
    expect(await bar.getAttribute('data-spam')).toBe('1');
    expect(await page.locator('svg.chart g.day').count()).toBe(30);
    await audit.check(page);
    expect(Number(await page.textContent('#chart-inbox'))).toBe(totals.inbox - 1); // all but the 45-day-old one
    expect(Number(await page.textContent('#chart-spam'))).toBe(totals.spam);
    await page.screenshot({ path: `/tmp/dashboard-submissions-chart-${testDialect}.png`, fullPage: true });
    await page.goto(`${t.url}/dashboard/forms`);
    const row = page.locator(`tr[data-form="${formId}"]`);
    expect(await row.locator('.inbox-count').textContent()).toBe(String(totals.inbox));
    expect(await row.locator('.spam-count').textContent()).toBe(String(totals.spam));
    expect(await row.textContent()).toContain('Support <b>desk</b>');
    await audit.check(page);
    await page.screenshot({ path: `/tmp/dashboard-forms-${testDialect}.png`, fullPage: true });
  });

  it('manages a hook on the dashboard: secret once, test delivery, attempts with the form name, delete', async () => {
    // The first account of an instance is on business; hooks' plan note is for the others.
    await t.services.accounts.setPlan(EMAIL, 'free');
    await page.goto(`${t.url}/dashboard/hooks`);
    expect(await page.textContent('main')).toContain('this account is on free');
    await audit.check(page);
    await t.services.accounts.setPlan(EMAIL, 'pro');
    await page.goto(`${t.url}/dashboard/hooks`);
    // A refused target: the message is by the field and the typed URL stays.
    await page.fill('input[name=targetUrl]', 'http://example.com/plain');
    await Promise.all([page.waitForLoadState('load'), page.click('text=Create hook')]);
    expect(await page.textContent('#targetUrl-error')).toContain('Use an https:// address');
    expect(await page.inputValue('input[name=targetUrl]')).toBe('http://example.com/plain');
    await audit.check(page);
    await page.fill('input[name=targetUrl]', `${receiver.url}/zap`);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/hooks`), page.click('text=Create hook')]);
    const secret = (await page.textContent('#new-secret'))!.trim();
    expect(secret).toMatch(/^whsec_/);
    await audit.check(page);
    await page.reload();
    expect(await page.locator('#new-secret').count()).toBe(0);
    expect(await t.services.hooks.listHooks(accountId)).toHaveLength(1);

    const received = receiver.received.length;
    await Promise.all([page.waitForURL(`${t.url}/dashboard/hooks`), page.click('button:has-text("Send test")')]);
    expect(await page.textContent('.notice')).toMatch(/Test delivery sent: the target answered HTTP 200/);
    const test = receiver.received[received]!;
    expect(() => new Webhook(secret).verify(test.body, test.headers as Record<string, string>)).not.toThrow();

    receiver.respond((_req, res) => res.writeHead(500).end('down'));
    await submit(t, formId, { json: { message: 'to the hook' } });
    const [hook] = await t.services.hooks.listHooks(accountId);
    await waitFor(async () => (await t.services.hooks.listRecentDeliveries(accountId, hook!.id, 5))[0]?.state === 'failed', 15_000, 'the failed delivery');
    await page.goto(`${t.url}/dashboard/hooks`);
    const text = (await page.textContent('main'))!;
    expect(text).toContain('Support <b>desk</b>');
    expect(text).toContain('The target answered HTTP 500 (2xx expected).');
    await audit.check(page);
    await page.screenshot({ path: `/tmp/dashboard-hooks-manage-${testDialect}.png`, fullPage: true });
    receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    // Deleting asks first; Cancel keeps the hook.
    await Promise.all([page.waitForURL(/\/delete$/), page.click('a:has-text("Delete…")')]);
    expect(await page.textContent('h1')).toBe('Delete this hook?');
    await audit.check(page);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/hooks`), page.click('a:has-text("Cancel")')]);
    expect(await t.services.hooks.listHooks(accountId)).toHaveLength(1);
    await Promise.all([page.waitForURL(/\/delete$/), page.click('a:has-text("Delete…")')]);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/hooks`), page.click('button:has-text("Delete hook")')]);
    expect(await page.textContent('.notice')).toBe('Hook deleted.');
    expect(await t.services.hooks.listHooks(accountId)).toHaveLength(0);
    expect(dialogs).toEqual([]);
  });

  it('changes the email and the password with the current password, keeping what was typed on an error', async () => {
    await page.goto(`${t.url}/dashboard/account`);
    expect(await page.textContent('#account-plan')).toBe('pro');
    await audit.check(page);
    // A hostile display name is shown as text on the account page.
    await page.fill('input[name=displayName]', XSS[1]!);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/account`), page.click('form[action="/dashboard/account"] button')]);
    expect(await page.inputValue('input[name=displayName]')).toBe(XSS[1]);
    expect(await page.locator('img[src=x]').count()).toBe(0);
    const form = page.locator('form[action="/dashboard/account/email"]');
    await form.locator('input[name=email]').fill('grace.hopper@example.com');
    await form.locator('input[name=currentPassword]').fill('wrong password');
    await Promise.all([page.waitForLoadState('load'), form.locator('button').click()]);
    expect(await page.textContent('#emailPassword-error')).toBe('That is not your current password');
    await audit.check(page);
    expect(await page.inputValue('form[action="/dashboard/account/email"] input[name=email]')).toBe('grace.hopper@example.com');
    await page.fill('form[action="/dashboard/account/email"] input[name=currentPassword]', PASSWORD);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/account`), page.click('form[action="/dashboard/account/email"] button')]);
    expect(await page.textContent('#account-email')).toBe('grace.hopper@example.com');
    expect(await page.textContent('.who')).toContain('grace.hopper@example.com');

    await page.fill('form[action="/dashboard/account/password"] input[name=currentPassword]', PASSWORD);
    await page.fill('form[action="/dashboard/account/password"] input[name=newPassword]', 'short');
    await Promise.all([page.waitForLoadState('load'), page.click('form[action="/dashboard/account/password"] button')]);
    expect(await page.textContent('#newPassword-error')).toBe('Use at least 8 characters');
    await audit.check(page);
    await page.fill('form[action="/dashboard/account/password"] input[name=currentPassword]', PASSWORD);
    await page.fill('form[action="/dashboard/account/password"] input[name=newPassword]', 'nanoseconds of wire');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/account`), page.click('form[action="/dashboard/account/password"] button')]);
    expect(await page.textContent('.notice')).toContain('Password changed');
    expect(await t.services.accounts.verifyCredentials('grace.hopper@example.com', 'nanoseconds of wire')).toBeDefined();
    expect(await t.services.accounts.verifyCredentials('grace.hopper@example.com', PASSWORD)).toBeUndefined();
  });

  it('lists sessions and logs another browser out', async () => {
    const other = await newContext();
    await logIn(other.page, 'grace.hopper@example.com', 'nanoseconds of wire');
    await page.goto(`${t.url}/dashboard/account`);
    expect(await page.locator('#sessions tbody tr').count()).toBe(2);
    expect(await page.textContent('#sessions')).toContain('This browser');
    await audit.check(page);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/account`), page.click('#sessions button:has-text("Log out")')]);
    expect(await page.locator('#sessions tbody tr').count()).toBe(1);
    await other.page.goto(`${t.url}/dashboard/forms`);
    expect(other.page.url()).toBe(`${t.url}/dashboard/login`);
    await audit.check(other.page);
    await other.context.close();
  });

  it('copy buttons copy, or say the browser refused and select the text', async () => {
    const granted = await newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    await logIn(granted.page, 'grace.hopper@example.com', 'nanoseconds of wire');
    await granted.page.goto(`${t.url}/dashboard/forms/${formId}/settings`);
    await granted.page.click('button.copy');
    await granted.page.waitForFunction(() => document.querySelector('.copy-status')?.textContent === 'Copied.');
    await audit.check(granted.page);
    expect(await granted.page.evaluate(() => navigator.clipboard.readText())).toContain(`/v1/submit/${formId}`);
    await granted.context.close();

    const refused = await newContext();
    // The browser refusing clipboard access, as it does without permission or focus.
    await refused.page.addInitScript(() => {
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) } });
    });
    await logIn(refused.page, 'grace.hopper@example.com', 'nanoseconds of wire');
    await refused.page.goto(`${t.url}/dashboard/forms/${formId}/settings`);
    await refused.page.click('button.copy');
    await refused.page.waitForFunction(() => (document.querySelector('.copy-status')?.textContent ?? '').includes('did not allow'));
    const selected = await refused.page.evaluate(() => window.getSelection()?.toString() ?? '');
    expect(selected).toContain(`/v1/submit/${formId}`);
    await refused.context.close();
  });

  it('is usable 390 px wide: no page-wide horizontal scroll and no control cut off', async () => {
    const phone = await newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await logIn(phone.page, 'grace.hopper@example.com', 'nanoseconds of wire');
    await submit(t, formId, { json: { email: 'a-very-long-address-that-could-overflow@example.com', message: 'x'.repeat(300) } });
    for (const path of ['/dashboard/forms', `/dashboard/forms/${formId}/submissions`, `/dashboard/forms/${formId}/settings`, `/dashboard/forms/${formId}/integrations`, '/dashboard/keys', '/dashboard/hooks', '/dashboard/account', '/dashboard/nowhere']) {
      await phone.page.goto(`${t.url}${path}`);
      const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
      const cut = await phone.page.evaluate(() =>
        [...document.querySelectorAll('button, input:not([type=hidden]), select, a.button')]
          .map((el) => ({ el: el.outerHTML.slice(0, 80), rect: el.getBoundingClientRect() }))
          .filter(({ rect }) => rect.width > 0 && (rect.left < 0 || rect.right > window.innerWidth + 0.5))
          .map(({ el }) => el),
      );
      expect(cut, path).toEqual([]);
      // No card scrolls sideways inside either: its content wraps.
      const scrolling = await phone.page.$$eval('.card, .table-wrap', (boxes) => boxes.filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.outerHTML.slice(0, 80)));
      expect(scrolling, path).toEqual([]);
      await audit.check(phone.page);
    }
    await phone.page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    await phone.page.screenshot({ path: `/tmp/dashboard-mobile-${testDialect}.png`, fullPage: true });
    await phone.context.close();
  });

  it('deletes the account only after the email is typed', async () => {
    await page.goto(`${t.url}/dashboard/account`);
    const form = 'form[action="/dashboard/account/delete"]';
    await page.fill(`${form} input[name=confirmEmail]`, 'someone@example.com');
    await page.fill(`${form} input[name=currentPassword]`, 'nanoseconds of wire');
    await Promise.all([page.waitForLoadState('load'), page.click(`${form} button`)]);
    expect(await page.textContent('#confirmEmail-error')).toBe('Type grace.hopper@example.com to confirm');
    await audit.check(page);
    expect(await page.inputValue(`${form} input[name=confirmEmail]`)).toBe('someone@example.com');
    await page.fill(`${form} input[name=confirmEmail]`, 'grace.hopper@example.com');
    await page.fill(`${form} input[name=currentPassword]`, 'nanoseconds of wire');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/login`), page.click(`${form} button`)]);
    expect(await page.textContent('.notice')).toContain('deleted');
    await audit.check(page);
    expect(await t.services.accounts.findAccount(accountId)).toBeUndefined();
    expect(await t.services.forms.findForm(formId)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await context.close();
  });

  it('audited every page it loaded with axe-core', () => {
    expect(audit.checked().length).toBeGreaterThan(12);
    expect(audit.unchecked()).toEqual([]);
  });
});
