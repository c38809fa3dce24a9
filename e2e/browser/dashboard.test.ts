import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { accessibilityAudit } from '../../test/helpers/axe.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.js';
import { submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

let t: TestApp;
let browser: Browser;
let page: Page;
let receiver: HttpsReceiver;
const dialogs: string[] = [];
let formId = '';
/** Axe-core on every page of Formgate this journey loads. */
let audit: ReturnType<typeof accessibilityAudit>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  // BASE_URL must be where the browser reaches this server (the snippet and /thanks use it).
  t = await startTestApp({
    baseUrlIsOwnAddress: true,
    env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    hookTransport: { ca: receiver.ca },
  });
  browser = await launchChromium();
  audit = accessibilityAudit(t.url);
  const context = await browser.newContext({ acceptDownloads: true });
  page = audit.watch(await context.newPage());
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

describe('the dashboard in Chromium', () => {
  it('signs up and creates a form', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await audit.check(page);
    await page.fill('input[name=email]', 'ada@example.com');
    await page.fill('input[name=displayName]', 'Ada');
    await page.fill('input[name=password]', 'analytical engine');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    await audit.check(page);
    await page.fill('input[name=name]', 'Contact us');
    await Promise.all([page.waitForURL(/\/dashboard\/forms\/frm_[0-9A-Za-z]+\/settings$/), page.click('text=Create form')]);
    formId = /forms\/(frm_[0-9A-Za-z]+)\//.exec(page.url())![1]!;
    await page.screenshot({ path: `/tmp/dashboard-settings-${testDialect}.png`, fullPage: true });
    expect(await page.textContent('#snippet')).toContain(`${t.url}/v1/submit/${formId}`);
    await audit.check(page);
  });

  it('the copied snippet works on a real page, and the submission shows up in the dashboard', async () => {
    const snippet = (await page.textContent('#snippet'))!;
    expect(await page.locator('button.copy').count()).toBe(3);
    const site = await servePage(`<!doctype html><html><body><h1>Our site</h1>${snippet}</body></html>`);
    try {
      const visitor = audit.watch(await browser.newPage());
      await visitor.goto(site.url);
      await visitor.fill('input[name=email]', 'visitor@example.com');
      await visitor.fill('textarea[name=message]', 'Hello from the snippet');
      await Promise.all([visitor.waitForURL(`${t.url}/thanks`), visitor.click('button[type=submit]')]);
      expect(await visitor.textContent('h1')).toContain('Thank you');
      await audit.check(visitor);
      await visitor.close();
    } finally {
      await site.close();
    }
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    expect(await page.textContent('table')).toContain('Hello from the snippet');
    await audit.check(page);
    await page.screenshot({ path: `/tmp/dashboard-submissions-${testDialect}.png`, fullPage: true });
  });

  it("the snippet with Formgate's script (versioned URL, SRI) submits in place on another origin", async () => {
    await page.goto(`${t.url}/dashboard/forms/${formId}/settings`);
    const snippet = (await page.textContent('#snippet-script'))!;
    const { versionedPath, integrity } = t.app.clientScript;
    expect(snippet).toContain(`<form action="${t.url}/v1/submit/${formId}" method="POST" data-formgate>`);
    expect(snippet).toContain(`<script src="${t.url}${versionedPath}" integrity="${integrity}" crossorigin="anonymous" defer></script>`);
    expect(await page.textContent('#snippet-react')).toContain(`useFormgate("${formId}", { baseUrl: "${t.url}" })`);
    const site = await servePage(`<!doctype html><html><body><h1>Our site</h1>${snippet}</body></html>`);
    try {
      const visitor = await browser.newPage();
      await visitor.goto(site.url);
      await visitor.fill('input[name=email]', 'script@example.com');
      await visitor.fill('textarea[name=message]', 'Hello from the script snippet');
      await visitor.click('button[type=submit]');
      await visitor.getByRole('status').filter({ hasText: 'Thank you! Your message has been sent.' }).waitFor();
      expect(visitor.url()).toBe(site.url);
      await visitor.close();
    } finally {
      await site.close();
    }
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    expect(await page.textContent('table')).toContain('Hello from the script snippet');
  });

  it('exports the submissions as CSV from the page', async () => {
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Export CSV')]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('\uFEFFcreatedAt,email,message,id,isSpam,spamReason,country,state,assignee,tags');
    expect(csv).toContain('visitor@example.com,Hello from the snippet');
  });

  it('shows hostile field values as text, with no script running', async () => {
    const posted = await submit(t, formId, { json: { name: '<script>alert(1)</script>', bio: '<img src=x onerror=alert(1)>' } });
    const { submissionId } = (await posted.json()) as { submissionId: string };
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    expect(await page.textContent('table')).toContain('<script>alert(1)</script>');
    await page.goto(`${t.url}/dashboard/submissions/${submissionId}`);
    expect(await page.textContent('table.fields')).toContain('<img src=x onerror=alert(1)>');
    expect(await page.locator('img[src=x]').count()).toBe(0);
    await audit.check(page);
    expect(dialogs).toEqual([]);
  });

  it('creates an API key shown once, and revoking it locks the API at once', async () => {
    await page.goto(`${t.url}/dashboard/keys`);
    await page.fill('input[name=name]', 'Zapier');
    await Promise.all([page.waitForLoadState('load'), page.click('text=Create key')]);
    const apiKey = (await page.textContent('#new-key'))!.trim();
    expect(apiKey).toMatch(/^fgk_/);
    await audit.check(page);
    const me = await fetch(`${t.url}/v1/api/me`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(me.status).toBe(200);
    await page.goto(`${t.url}/dashboard/keys`);
    expect(await page.locator('#new-key').count()).toBe(0); // shown once only
    expect(await page.textContent('table')).toContain('Zapier');
    await Promise.all([page.waitForURL(/\/revoke$/), page.click('a:has-text("Revoke…")')]);
    await audit.check(page);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/keys`), page.click('button:has-text("Revoke key")')]);
    expect(await page.textContent('table')).toContain('Revoked');
    await audit.check(page);
    expect((await fetch(`${t.url}/v1/api/me`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(401);
  });

  it('creates a key of scope triage from the form, said so in the list, and the key has that scope', async () => {
    await page.goto(`${t.url}/dashboard/keys`);
    await page.fill('input[name=name]', 'Assistant');
    await page.selectOption('select[name=scope]', 'triage');
    await Promise.all([page.waitForLoadState('load'), page.click('text=Create key')]);
    const apiKey = (await page.textContent('#new-key'))!.trim();
    await audit.check(page);
    const row = page.locator('tr', { hasText: 'Assistant' });
    expect(await row.locator('td[data-label=Scope]').textContent()).toBe('Read and triage');
    const auth = await t.services.apiKeys.authenticate(apiKey);
    expect(auth?.scope).toBe('triage');
  });

  it("lists a hook's delivery attempts", async () => {
    const account = await t.services.accounts.setPlan('ada@example.com', 'pro');
    const { hook } = await t.services.hooks.createHook(account.id, { formId, targetUrl: `${receiver.url}/zap` });
    await submit(t, formId, { json: { name: 'hooked' } });
    await waitFor(async () => (await t.services.hooks.listRecentDeliveries(account.id, hook.id, 5))[0]?.state === 'sent', 15_000, 'the delivery');
    await page.goto(`${t.url}/dashboard/hooks`);
    const text = (await page.textContent('main'))!;
    expect(text).toContain(`${receiver.url}/zap`);
    expect(text).toContain('sent');
    expect(text).toMatch(/200\s*\d+ ms/);
    await audit.check(page);
    await page.screenshot({ path: `/tmp/dashboard-hooks-${testDialect}.png`, fullPage: true });
  });

  it('audited every page of Formgate it loaded with axe-core', () => {
    expect(audit.checked().length).toBeGreaterThan(6);
    expect(audit.unchecked()).toEqual([]);
  });
});
