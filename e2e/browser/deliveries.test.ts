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
let audit: ReturnType<typeof accessibilityAudit>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
  browser = await launchChromium();
  audit = accessibilityAudit(t.url);
  page = audit.watch(await (await browser.newContext()).newPage());
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

describe(`a submission's deliveries in Chromium (${testDialect})`, () => {
  it('an owner sees the failed hook delivery and sends it again with one click', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await audit.check(page);
    await page.fill('input[name=email]', 'ada@example.com');
    await page.fill('input[name=displayName]', 'Ada');
    await page.fill('input[name=password]', 'analytical engine');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    await audit.check(page);
    const account = await t.handle.db.selectFrom('accounts').select('id').where('email', '=', 'ada@example.com').executeTakeFirstOrThrow();
    await t.handle.db.updateTable('accounts').set({ plan_id: 'pro' }).where('id', '=', account.id).execute();
    const form = await t.services.forms.createForm(account.id, { name: 'Contact' });
    const { hook } = await t.services.hooks.createHook(account.id, { formId: form.id, targetUrl: `${receiver.url}/in` });

    // The receiver is down when the submission arrives.
    receiver.respond((_req, res) => res.writeHead(503).end());
    const { submissionId } = (await (await submit(t, form.id, { json: { name: 'Ada' } }, JSON_ACCEPT)).json()) as { submissionId: string };
    await waitFor(async () => (await t.services.hooks.listDeliveriesOfSubmission(account.id, submissionId))[0]?.state === 'failed', 20_000, 'the failed delivery');

    await page.goto(`${t.url}/dashboard/submissions/${submissionId}`);
    const row = page.locator('tr[data-message]');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td[data-label=Message]').textContent()).toBe('Hook delivery');
    expect(await row.locator('td[data-label=State]').textContent()).toBe('failed');
    expect(await row.locator('td[data-label="Last answer"]').textContent()).toBe('HTTP 503');
    expect(await row.locator('td[data-label=Attempts]').textContent()).toBe('1');
    await audit.check(page);

    // Back up: one click sends it again, with the same webhook-id.
    receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    await Promise.all([page.waitForURL(`${t.url}/dashboard/submissions/${submissionId}#deliveries`), page.click('tr[data-message] button:has-text("Send again")')]);
    expect(await page.textContent('.notice')).toContain('Queued to be sent again');
    await waitFor(async () => (await t.services.hooks.listDeliveriesOfSubmission(account.id, submissionId))[0]?.state === 'sent', 20_000, 'sent again');
    await page.reload();
    expect(await row.locator('td[data-label=State]').textContent()).toBe('sent');
    expect(await row.locator('td[data-label=Attempts]').textContent()).toBe('2');
    expect(await row.locator('td[data-label="Last answer"]').textContent()).toMatch(/^HTTP 200Earlier attempts \(1\)/);
    // The first attempt's answer, one click away.
    await row.locator('details.earlier summary').click();
    expect(await row.locator('details.earlier li').allTextContents()).toEqual([expect.stringMatching(/: HTTP 503$/)]);
    await audit.check(page);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([`${submissionId}.${hook.id}`, `${submissionId}.${hook.id}`]);

    // The hook's page: the bulk re-send after an outage, and "Send test" in the log.
    await page.goto(`${t.url}/dashboard/hooks`);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/hooks`), page.click('button:has-text("Send test")')]);
    expect(await page.locator('.hook td[data-label=Submission]').first().textContent()).toBe('Send test');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/hooks`), page.click('button:has-text("Send failed again")')]);
    expect(await page.textContent('.notice')).toContain('No failed deliveries in that span');
    await audit.check(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/dashboard/submissions/${submissionId}`);
    await audit.check(page);
    await page.screenshot({ path: `/tmp/dashboard-deliveries-${testDialect}.png`, fullPage: true });
    expect(audit.unchecked()).toEqual([]);
  });
});
