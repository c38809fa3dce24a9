import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';

// The settings page on a laptop: the snippet first, a link to each section, the whole page in a
// few screens (it was 3,863 px tall at 1280 px).
const EMAIL = 'settings-owner@example.com';
const PASSWORD = 'long enough password';

let t: TestApp;
let smtp: SmtpSink;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'formgate@example.com' } });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

describe(`the settings page at 1280 px on ${testDialect}`, () => {
  it('a new form: snippet first, a link to every section, sizes in KiB/MiB, at most 3,500 px tall', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await page.fill('input[name=email]', EMAIL);
    await page.fill('input[name=displayName]', 'Owner');
    await page.fill('input[name=password]', PASSWORD);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    await page.fill('input[name=name]', 'Contact');
    await Promise.all([page.waitForURL(/\/settings$/), page.click('button:has-text("Create form")')]);

    const top = async (selector: string) => (await page.locator(selector).boundingBox())!.y;
    expect(await top('#snippet-section')).toBeLessThan(await top('#general'));
    for (const id of ['snippet-section', 'general', 'bot-check', 'spam-rules', 'after-submit', 'privacy', 'files', 'notifications', 'submitter', 'delete']) {
      expect(await page.locator(`nav.jump a[href="#${id}"]`).count(), id).toBe(1);
    }
    expect(await page.textContent('nav.jump a[href="#files"]')).toBe('File uploads');
    expect(await page.inputValue('input[name=maxFileBytes]')).toBe('10 MiB');
    expect(await page.inputValue('input[name=maxTotalBytes]')).toBe('25 MiB');
    // The creator hears of submissions at once: their own confirmed address is the first recipient.
    expect(await page.textContent('#notifications')).toContain(EMAIL);

    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height, `settings page height at 1280 px`).toBeLessThanOrEqual(3_500);
  });
});
