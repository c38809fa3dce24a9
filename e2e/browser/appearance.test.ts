import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { insertSubmissions } from '../../test/helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { waitFor } from '../../test/helpers/wait.js';

// What an owner sees on a fresh instance, on a phone and a wide screen: the settings page grouped
// with the snippet first, and the pages that answer people who arrive from an email or with a
// disabled account. Every page in light and dark, through axe-core: every-page.test.ts.
const EMAIL = 'owner@example.com';
const PASSWORD = 'long enough password';

let t: TestApp;
let smtp: SmtpSink;
let browser: Browser;
let owner: { storage: Awaited<ReturnType<BrowserContext['storageState']>>; accountId: string; formId: string; submissionId: string };
let verifyLink = '';
let changeLink = '';

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'formgate@example.com' } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

async function ownerPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ storageState: owner.storage, ...options });
  return { context, page: await context.newPage() };
}

/** The page's serious and critical axe findings, with where in the message. */
async function audit(page: Page, label: string): Promise<void> {
  expect(await seriousViolations(page), label).toEqual([]);
}

describe(`the dashboard as a person sees it on ${testDialect}`, () => {
  it('a fresh instance opens on sign-up, and the first account gets there', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/signup');
    expect(await page.textContent('h1')).toBe('Sign up');
    await page.fill('input[name=email]', EMAIL);
    await page.fill('input[name=displayName]', 'Owner');
    await page.fill('input[name=password]', PASSWORD);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    const account = (await t.services.accounts.findAccountByEmail(EMAIL))!;
    const form = await t.services.forms.createForm(account.id, { name: 'Contact' });
    const long = 'I would like a quote for a website with a contact form, a newsletter sign-up and a shop; please call me back next week';
    const [submissionId] = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString(), payload: { email: 'ada@example.org', message: long } }]);
    await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString(), payload: { message: 'casino' }, isSpam: true }]);
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'slack', url: 'https://hooks.slack.com/services/T0/B0/x' });
    await t.handle.db.updateTable('integrations').set({ enabled: 0, disabled_reason: 'Slack answered 404: the webhook was deleted' }).where('id', '=', integration.id).execute();
    await t.services.notifications.setRecipients(form.id, ['team@example.net'], { verified: false, accountId: account.id });
    await t.services.emailChanges.requestChange(account.id, 'new.owner@example.net', { password: PASSWORD, signedOnAt: null });
    await waitFor(() => smtp.to('team@example.net').length === 1 && smtp.to('new.owner@example.net').length === 1, 15_000, 'the two links');
    verifyLink = /(\/dashboard\/verify-email\/[A-Za-z0-9_-]+)/.exec(smtp.to('team@example.net')[0]!.parsed.text!)![1]!;
    changeLink = /(\/dashboard\/confirm-email\/[A-Za-z0-9_-]+)/.exec(smtp.to('new.owner@example.net')[0]!.parsed.text!)![1]!;
    owner = { storage: await context.storageState(), accountId: account.id, formId: form.id, submissionId: submissionId! };
    await context.close();
  });

  it('the settings page: snippet first, grouped sections, no repository files named, fits 390 px and 1920 px', async () => {
    const heights: Record<number, number> = {};
    for (const width of [390, 1920]) {
      const { context, page } = await ownerPage({ viewport: { width, height: 900 } });
      await page.goto(`${t.url}/dashboard/forms/${owner.formId}/settings`);
      const top = async (selector: string) => (await page.locator(selector).boundingBox())!.y;
      expect(await top('#snippet-section')).toBeLessThan(await top('#general'));
      expect(await top('#snippet')).toBeLessThan(900);
      for (const id of ['general', 'bot-check', 'spam-rules', 'after-submit', 'privacy', 'notifications', 'submitter', 'delete']) {
        expect(await page.locator(`nav.jump a[href="#${id}"]`).count(), id).toBe(1);
      }
      expect(await page.textContent('main')).not.toMatch(/docs\/|\.md\b|contrib\//);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `horizontal scroll at ${width} px`).toBeLessThanOrEqual(0);
      heights[width] = await page.evaluate(() => document.documentElement.scrollHeight);
      await audit(page, `settings at ${width} px`);
      await context.close();
    }
    // A page showing every vendor's fields, with the snippet at the bottom, is over 6,000 px at 1920 px.
    expect(heights[1920]).toBeLessThan(3_600);
    expect(heights[390]).toBeLessThan(heights[1920]! * 3);
  });

  it('shows only the chosen bot check\'s fields as the select changes, with and without JavaScript', async () => {
    for (const javaScriptEnabled of [true, false]) {
      const { context, page } = await ownerPage({ javaScriptEnabled });
      await page.goto(`${t.url}/dashboard/forms/${owner.formId}/settings`);
      const shown = async () => {
        const vendors: string[] = [];
        for (const el of await page.locator('.settings-form .vendor').all()) if (await el.isVisible()) vendors.push((await el.getAttribute('data-vendor'))!);
        return vendors;
      };
      expect(await shown(), `no bot check, JavaScript ${javaScriptEnabled}`).toEqual(['none']);
      await page.selectOption('select[name=botCheck]', 'turnstile');
      expect(await shown()).toEqual(['turnstile']);
      await page.fill('input[name=turnstileSecret]', 'my-secret');
      await page.selectOption('select[name=botCheck]', 'altcha');
      expect(await shown()).toEqual(['altcha']);
      await context.close();
    }
  });

  it('uses the width at 1920 px: the Fields column is not cut and the "integration disabled" badge stays on one line', async () => {
    const { context, page } = await ownerPage({ viewport: { width: 1920, height: 1000 } });
    await page.goto(`${t.url}/dashboard/forms`);
    expect((await page.locator('main').boundingBox())!.width).toBeGreaterThan(1700);
    const badge = page.locator('.integration-warning');
    expect(await badge.evaluate((el) => el.getClientRects().length)).toBe(1);
    await page.goto(`${t.url}/dashboard/forms/${owner.formId}/submissions`);
    const preview = page.locator('td.preview').first();
    expect(await preview.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(await preview.textContent()).toContain('please call me back next week');
    await context.close();
  });

  it('links from an email ask for a click before they confirm, and show no dashboard to someone without an account', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.url}${verifyLink}`);
    expect(await page.textContent('h1')).toBe('Confirm this address');
    expect(await page.locator('text=Back to the dashboard').count()).toBe(0);
    expect((await t.services.notifications.listRecipients(owner.formId))[0]!.state).toBe('pending');
    await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
    expect(await page.textContent('h1')).toBe('Address confirmed');
    expect(await page.locator('text=Back to the dashboard').count()).toBe(0);
    expect((await t.services.notifications.listRecipients(owner.formId))[0]!.state).toBe('verified');

    await page.goto(`${t.url}${changeLink}`);
    expect(await page.textContent('h1')).toBe('Confirm your new email');
    expect((await t.services.accounts.findAccount(owner.accountId))!.email).toBe(EMAIL);
    await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
    expect(await page.textContent('h1')).toBe('Email changed');
    expect((await t.services.accounts.findAccount(owner.accountId))!.email).toBe('new.owner@example.net');
    await context.close();
  });

  it('the integrations form keeps a refused URL as typed', async () => {
    const { context, page } = await ownerPage();
    await page.goto(`${t.url}/dashboard/forms/${owner.formId}/integrations`);
    const slack = page.locator('details[data-kind=slack]');
    await slack.locator('summary').click();
    await slack.locator('input[name=url]').fill('http://127.0.0.1:9/services/typed');
    await Promise.all([page.waitForLoadState('load'), slack.locator('button.primary').click()]);
    expect(await page.locator('details[data-kind=slack] .field-error').count()).toBe(1);
    expect(await page.inputValue('details[data-kind=slack] input[name=url]')).toBe('http://127.0.0.1:9/services/typed');
    await context.close();
  });

  it('a signed-in user whose account is disabled is told so on the log-in page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.url}/dashboard/signup`);
    await page.fill('input[name=email]', 'member@example.com');
    await page.fill('input[name=displayName]', 'Member');
    await page.fill('input[name=password]', PASSWORD);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    const member = (await t.services.accounts.findAccountByEmail('member@example.com'))!;
    await t.services.admin.setDisabled(owner.accountId, member.id, true);
    await page.goto(`${t.url}/dashboard/forms`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    expect(await page.textContent('.error')).toContain('This account is disabled');
    await audit(page, 'log-in page of a disabled account');
    await context.close();
  });
});
