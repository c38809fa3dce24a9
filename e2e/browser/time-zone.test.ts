import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { insertSubmissions } from '../../test/helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

// One rule for times, date filters and chart days — the viewer's zone, or UTC
// (said so) until the browser has told the server its zone, and without JavaScript.
const LA = 'America/Los_Angeles';
const EMAIL = 'pacific@example.com';
const PASSWORD = 'long enough password';

let t: TestApp;
let smtp: SmtpSink;
let browser: Browser;
let formId = '';
// 03:04 UTC two days ago: the evening before in Los Angeles (19:04 PST or 20:04 PDT).
const utcDay = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const createdAt = `${utcDay}T03:04:00.000Z`;
const laDay = new Intl.DateTimeFormat('en-CA', { timeZone: LA }).format(new Date(createdAt));

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** What a person in the zone reads for an instant: "23 Nov 2026, 19:04 PST" (computed here with Intl, not by the app). */
function wallClock(zone: string, iso: string): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' })
      .formatToParts(new Date(iso))
      .map((x) => [x.type, x.value]),
  );
  return `${p.day} ${MONTHS[Number(p.month) - 1]} ${p.year}, ${p.hour}:${p.minute} ${p.timeZoneName}`;
}
/** A YYYY-MM-DD day as the pages write it: "23 Nov 2026". */
const dayText = (day: string) => `${Number(day.slice(8, 10))} ${MONTHS[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)}`;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'formgate@example.com' } });
  browser = await launchChromium();
  const account = await t.services.accounts.createAccount({ email: EMAIL, displayName: 'Pacific', planId: 'free', password: PASSWORD });
  formId = (await t.services.forms.createForm(account.id, { name: 'West coast' })).id;
  await insertSubmissions(t.services, formId, [{ createdAt, payload: { message: 'late evening refund' } }]);
  // A notification, so the email log has a message and an attempt to show.
  await t.services.notifications.setRecipients(formId, ['owner@example.net'], { verified: true });
  expect((await submit(t, formId, { json: { message: 'today' } }, JSON_ACCEPT)).status).toBe(200);
  await waitFor(() => smtp.to('owner@example.net').length === 1, 15_000, 'the notification');
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

async function loggedIn(options: Parameters<Browser['newContext']>[0]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name=email]', EMAIL);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
  return { context, page };
}

const listUrl = () => `${t.url}/dashboard/forms/${formId}/submissions`;
const rowTexts = (page: Page) => page.locator('table.stacked tbody tr').allTextContents();

describe('time zones in Chromium', () => {
  it('in Los Angeles: the list, the From/To filter, the chart, the export and the email log agree on the Los Angeles day', async () => {
    expect(laDay).not.toBe(utcDay);
    const { context, page } = await loggedIn({ timezoneId: LA });
    await page.goto(listUrl());
    expect(await page.textContent('#tz')).toBe(LA);
    const row = page.locator('tr', { hasText: 'late evening refund' });
    expect(await row.locator('time').textContent()).toBe(wallClock(LA, createdAt));
    expect(await row.locator('time').textContent()).toMatch(new RegExp(`^${dayText(laDay)}, (19|20):04 P[SD]T$`));
    expect(await page.textContent('figcaption')).toContain(`days in ${LA}`);
    // The chart's bar is on the Los Angeles day, not on the UTC one.
    expect(await page.getAttribute(`svg.chart g.day[data-day="${laDay}"]`, 'data-inbox')).toBe('1');
    expect(await page.getAttribute(`svg.chart g.day[data-day="${utcDay}"]`, 'data-inbox')).toBe('0');
    expect(await seriousViolations(page)).toEqual([]);

    // From/To = that Los Angeles day finds it; the UTC day of the same instant does not.
    await page.fill('input[name=from]', laDay);
    await page.fill('input[name=to]', laDay);
    await Promise.all([page.waitForURL(/from=/), page.click('button:has-text("Search")')]);
    expect(await rowTexts(page)).toEqual([expect.stringContaining('late evening refund')]);
    expect(await page.textContent('#dates-zone')).toContain(LA);
    const exported = await page.request.get(`${t.url}${(await page.getAttribute('#export-csv', 'href'))!}`);
    const csv = (await exported.text()).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toContain(createdAt);
    await page.fill('input[name=q]', 'refu');
    await Promise.all([page.waitForURL(/q=refu/), page.click('button:has-text("Search")')]);
    expect(await rowTexts(page)).toHaveLength(1);
    await page.goto(`${listUrl()}?from=${utcDay}&to=${utcDay}`);
    expect(await page.textContent('#empty')).toBe('No submissions match.');

    // Every other page's times too: the email log (the first place a reader looks) and the sessions.
    await page.goto(`${t.url}/dashboard/forms/${formId}/email-log`);
    const logged = page.locator('#email-log time').first();
    expect(await logged.textContent()).toBe(wallClock(LA, (await logged.getAttribute('datetime'))!));
    expect(await page.textContent('#tz')).toBe(LA);
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${t.url}/dashboard/account`);
    const started = page.locator('#sessions time').first();
    expect(await started.textContent()).toBe(wallClock(LA, (await started.getAttribute('datetime'))!));
    await context.close();
  });

  it('a page drawn before the server knew the zone is loaded once more; a zone the server refuses never loops', async () => {
    const first = await loggedIn({ timezoneId: LA });
    const session = (await first.context.cookies()).filter((c) => c.name === 'fg_session');
    await first.context.close();
    const documents = (page: Page) => {
      const urls: string[] = [];
      page.on('request', (request) => {
        if (request.resourceType() === 'document') urls.push(request.url());
      });
      return urls;
    };

    const fresh = await browser.newContext({ timezoneId: LA });
    await fresh.addCookies(session);
    const page = await fresh.newPage();
    const loads = documents(page);
    await page.goto(listUrl());
    await page.waitForFunction((zone) => document.documentElement.dataset.tz === zone, LA);
    expect(await page.locator('tr', { hasText: 'late evening refund' }).locator('time').textContent()).toBe(wallClock(LA, createdAt));
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('nav a:has-text("Forms")')]);
    expect(loads).toEqual([listUrl(), listUrl(), `${t.url}/dashboard/forms`]);
    await fresh.close();

    // A browser naming a zone this server does not know: UTC, said so, after one try.
    const odd = await browser.newContext({ timezoneId: LA });
    await odd.addCookies(session);
    await odd.addInitScript(() => {
      const original = Intl.DateTimeFormat.prototype.resolvedOptions;
      Intl.DateTimeFormat.prototype.resolvedOptions = function () {
        return { ...original.call(this), timeZone: 'Mars/Olympus_Mons' };
      };
    });
    const oddPage = await odd.newPage();
    const oddLoads = documents(oddPage);
    await oddPage.goto(listUrl());
    await oddPage.waitForFunction(() => document.documentElement.dataset.tzCookie === 'Mars/Olympus_Mons');
    expect(await oddPage.textContent('#tz')).toBe('UTC');
    await Promise.all([oddPage.waitForURL(`${t.url}/dashboard/forms`), oddPage.click('nav a:has-text("Forms")')]);
    expect(oddLoads).toEqual([listUrl(), listUrl(), `${t.url}/dashboard/forms`]);
    await odd.close();
  });

  it('without JavaScript: UTC everywhere, labelled UTC, the filter and the chart on the UTC day', async () => {
    const { context, page } = await loggedIn({ timezoneId: LA, javaScriptEnabled: false });
    await page.goto(listUrl());
    expect(await page.textContent('footer')).toBe('Times, date filters and chart days are in UTC.');
    expect(await page.locator('tr', { hasText: 'late evening refund' }).locator('time').textContent()).toBe(`${dayText(utcDay)}, 03:04 UTC`);
    expect(await page.getAttribute(`svg.chart g.day[data-day="${utcDay}"]`, 'data-inbox')).toBe('1');
    expect(await page.textContent('figcaption')).toContain('days in UTC');
    await page.goto(`${listUrl()}?from=${utcDay}&to=${utcDay}`);
    expect(await rowTexts(page)).toEqual([expect.stringContaining('late evening refund')]);
    await page.goto(`${listUrl()}?from=${laDay}&to=${laDay}`);
    expect(await page.textContent('#empty')).toBe('No submissions match.');
    await context.close();
  });

  it('a forged zone cookie is ignored and echoed escaped', async () => {
    const { context, page } = await loggedIn({ javaScriptEnabled: false });
    await context.addCookies([{ name: 'fg_tz', value: encodeURIComponent('"><img src=x onerror=alert(1)>'), url: `${t.url}/dashboard` }]);
    await page.goto(listUrl());
    expect(await page.textContent('#tz')).toBe('UTC');
    expect(await page.locator('img[src=x]').count()).toBe(0);
    expect(await page.getAttribute('html', 'data-tz-cookie')).toBe('"><img src=x onerror=alert(1)>');
    await context.close();
  });
});
