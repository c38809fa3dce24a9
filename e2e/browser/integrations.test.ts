import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { accessibilityAudit } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.js';
import { JSON_ACCEPT, submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

let t: TestApp;
let browser: Browser;
let page: Page;
let receiver: HttpsReceiver;
let formId = '';
/** Axe-core on every page this journey loads. */
let audit: ReturnType<typeof accessibilityAudit>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  receiver.respond((req, res) => res.writeHead(req.url === '/gone' ? 404 : 200).end('ok'));
  t = await startTestApp({
    baseUrlIsOwnAddress: true,
    env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', MAIL_RETRY_BASE_MS: '25' },
    hookTransport: { ca: receiver.ca },
  });
  browser = await launchChromium();
  audit = accessibilityAudit(t.url);
  page = audit.watch(await (await browser.newContext()).newPage());
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

const integrationsUrl = () => `${t.url}/dashboard/forms/${formId}/integrations`;

describe(`integrations on the dashboard in Chromium (${testDialect})`, () => {
  it('adds a Slack integration: the URL is shown once, then only as set', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await audit.check(page);
    await page.fill('input[name=email]', 'grace@example.com');
    await page.fill('input[name=displayName]', 'Grace');
    await page.fill('input[name=password]', 'compiler compiler');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    await audit.check(page);
    await page.fill('input[name=name]', 'Leads');
    await Promise.all([page.waitForURL(/\/settings$/), page.click('text=Create form')]);
    formId = /forms\/(frm_[0-9A-Za-z]+)\//.exec(page.url())![1]!;
    await audit.check(page);

    await page.click('a:has-text("Integrations")');
    await page.waitForURL(integrationsUrl());
    expect(await page.textContent('#integrations')).toContain('No integrations yet.');
    await audit.check(page);

    // A plain http:// URL is refused with the field named, and nothing is added.
    await page.click('details[data-kind=slack] summary');
    await page.fill('details[data-kind=slack] input[name=url]', 'http://hooks.example.com/x');
    await page.click('details[data-kind=slack] button.primary');
    expect(await page.textContent('details[data-kind=slack] .field-error')).toContain('must be an https: URL');
    await audit.check(page);

    const url = `${receiver.url}/slack-ui`;
    await page.fill('details[data-kind=slack] input[name=name]', '#leads');
    await page.fill('details[data-kind=slack] input[name=url]', url);
    await Promise.all([page.waitForURL(integrationsUrl()), page.click('details[data-kind=slack] button.primary')]);
    expect(await page.textContent('#new-secret')).toBe(url);
    const row = page.locator('.integration').first();
    expect(await row.locator('.integration-name').textContent()).toBe('#leads');
    expect(await row.textContent()).toContain('URL: set');
    await audit.check(page);
    await page.screenshot({ path: `/tmp/dashboard-integrations-${testDialect}.png`, fullPage: true });

    await page.reload();
    expect(await page.locator('#new-secret').count()).toBe(0);
    expect(await page.content()).not.toContain('/slack-ui');
  });

  it('the test button sends a sample and the attempt log shows it', async () => {
    await Promise.all([page.waitForURL(integrationsUrl()), page.click('.integration button:has-text("Send test")')]);
    expect(await page.textContent('body')).toContain('Test message sent: the platform answered HTTP 200.');
    expect(receiver.received.filter((r) => r.url === '/slack-ui')).toHaveLength(1);
    expect(await page.locator('.integration table.attempts tbody tr').count()).toBe(1);
    expect(await page.textContent('.integration table.attempts')).toContain('sent');
    await audit.check(page);
  });

  it('a 404 from the platform disables it: the reason on its page, a warning on the forms list; enable, disable, delete', async () => {
    await page.click('details[data-kind=discord] summary');
    await page.fill('details[data-kind=discord] input[name=url]', `${receiver.url}/gone`);
    await Promise.all([page.waitForURL(integrationsUrl()), page.click('details[data-kind=discord] button.primary')]);
    expect(await page.locator('.integration').count()).toBe(2);

    const res = await submit(t, formId, { json: { message: 'hello @everyone' } }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    const [, discord] = await t.services.integrations.listIntegrations(formId);
    await waitFor(async () => !(await t.services.integrations.getIntegration(discord!.id)).enabled, 15_000, 'the Discord integration disabled');

    await page.reload();
    const disabled = page.locator(`[data-integration="${discord!.id}"]`);
    expect(await disabled.locator('.integration-status').textContent()).toBe('disabled');
    expect(await disabled.locator('.disabled-reason').textContent()).toContain('404 Not Found');
    expect(await disabled.locator('table.attempts').textContent()).toContain('404');
    await audit.check(page);

    await page.goto(`${t.url}/dashboard/forms`);
    expect(await page.textContent(`tr[data-form="${formId}"] .integration-warning`)).toContain('integration disabled');
    await audit.check(page);

    await page.goto(integrationsUrl());
    await Promise.all([page.waitForURL(integrationsUrl()), disabled.locator('button:has-text("Enable")').click()]);
    expect(await disabled.locator('.integration-status').textContent()).toBe('enabled');
    await page.goto(`${t.url}/dashboard/forms`);
    expect(await page.locator(`tr[data-form="${formId}"] .integration-warning`).count()).toBe(0);

    await page.goto(integrationsUrl());
    await Promise.all([page.waitForURL(integrationsUrl()), disabled.locator('button:has-text("Disable")').click()]);
    expect(await disabled.locator('.integration-status').textContent()).toBe('disabled');
    await Promise.all([page.waitForURL(integrationsUrl()), disabled.locator('button:has-text("Delete")').click()]);
    expect(await page.locator('.integration').count()).toBe(1);
    expect(await page.textContent('body')).toContain('Integration deleted.');
    await audit.check(page);
  });

  it("another account cannot open or change this form's integrations", async () => {
    const other = await browser.newContext();
    const stranger = audit.watch(await other.newPage());
    await stranger.goto(`${t.url}/dashboard/signup`);
    await stranger.fill('input[name=email]', 'mallory@example.com');
    await stranger.fill('input[name=displayName]', 'Mallory');
    await stranger.fill('input[name=password]', 'not the owner here');
    await Promise.all([stranger.waitForURL(`${t.url}/dashboard/forms`), stranger.click('button.primary')]);
    const response = await stranger.goto(integrationsUrl());
    expect(response!.status()).toBe(404);
    await audit.check(stranger);
    await other.close();
  });

  it('audited every page it loaded with axe-core', () => {
    expect(audit.checked().length).toBeGreaterThan(3);
    expect(audit.unchecked()).toEqual([]);
  });
});
