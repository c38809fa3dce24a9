import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { accessibilityAudit } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { createAccount } from '../../test/helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { waitFor } from '../../test/helpers/wait.js';

let t: TestApp;
let sink: SmtpSink;
let browser: Browser;
let page: Page;
/** Axe-core on every page this journey loads. */
let audit: ReturnType<typeof accessibilityAudit>;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { SMTP_URL: sink.url } });
  browser = await launchChromium();
  audit = accessibilityAudit(t.url);
  page = audit.watch(await (await browser.newContext()).newPage());
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await sink?.close();
});

async function requestReset(email: string): Promise<string> {
  await page.goto(`${t.url}/dashboard/login`);
  await Promise.all([page.waitForURL(`${t.url}/dashboard/forgot-password`), page.click('text=Forgot password?')]);
  await audit.check(page);
  await page.fill('input[name=email]', email);
  await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
  await audit.check(page);
  return (await page.textContent('main'))!;
}

async function logIn(email: string, password: string): Promise<string> {
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
  await audit.check(page);
  return page.url();
}

const resetLink = (text: string) => /(http:\/\/\S+\/dashboard\/reset-password\/[A-Za-z0-9_-]+)/.exec(text)![1]!;

describe(`password reset in Chromium on ${testDialect}`, () => {
  it('sends a single-use link that sets a new password, and answers the same for an unknown address', async () => {
    const account = await createAccount(t.services, { email: 'forgetful@example.com', password: 'old password 1' });

    const known = await requestReset('forgetful@example.com');
    const unknown = await requestReset('nobody-here@example.com');
    expect(known).toContain('If an account uses this address');
    expect(unknown).toBe(known);

    await waitFor(() => sink.to('forgetful@example.com').length === 1, 15_000, 'the reset email');
    const mail = sink.to('forgetful@example.com')[0]!;
    expect(mail.parsed.subject).toBe('Reset your Formgate password');
    const link = resetLink(mail.parsed.text!);
    expect(link.startsWith(`${t.url}/dashboard/reset-password/`)).toBe(true);
    // Nothing went to the unknown address.
    await t.services.outbox.settle();
    expect(sink.rcptAttempts).not.toContain('nobody-here@example.com');

    await page.goto(link);
    await audit.check(page);
    await page.fill('input[name=password]', 'new password 2');
    await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
    expect(await page.textContent('h1')).toBe('Password changed');
    await audit.check(page);

    // Single use.
    const again = await page.goto(link);
    expect(again!.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Link not valid');
    await audit.check(page);

    expect(await logIn('forgetful@example.com', 'old password 1')).toBe(`${t.url}/dashboard/login`);
    expect(await logIn('forgetful@example.com', 'new password 2')).toBe(`${t.url}/dashboard/forms`);
    expect(await t.services.accounts.verifyCredentials(account.email, 'new password 2')).toMatchObject({ id: account.id });
  });

  it('a link older than one hour no longer works', async () => {
    await createAccount(t.services, { email: 'late@example.com', password: 'old password 1' });
    await page.context().clearCookies();
    await requestReset('late@example.com');
    await waitFor(() => sink.to('late@example.com').length === 1, 15_000, 'the reset email');
    const link = resetLink(sink.to('late@example.com')[0]!.parsed.text!);
    const rows = await t.handle.db.selectFrom('password_resets').select(['created_at', 'expires_at']).execute();
    expect(rows.every((r) => Date.parse(r.expires_at) - Date.parse(r.created_at) === 60 * 60 * 1000)).toBe(true);
    await t.handle.db.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const res = await page.goto(link);
    expect(res!.status()).toBe(404);
    // A POST that passes the CSRF check (the token of a page this browser loaded, with its
    // cookie) still finds the link dead: the expiry, not the missing token, refuses it.
    await page.goto(`${t.url}/dashboard/forgot-password`);
    const csrf = await page.inputValue('input[name=_csrf]');
    const post = await page.request.post(link, { form: { _csrf: csrf, password: 'new password 3' } });
    expect(post.status()).toBe(404);
    expect(await post.text()).toContain('This reset link was already used or has expired.');
    expect(await t.services.accounts.verifyCredentials('late@example.com', 'old password 1')).toBeDefined();
  });

  it('audited every page it loaded with axe-core', () => {
    expect(audit.checked().length).toBeGreaterThan(3);
    expect(audit.unchecked()).toEqual([]);
  });
});
