import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { insertSubmissions } from '../../test/helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { JSON_ACCEPT, storedSubmission, submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

// Settings, sign-up and notices as an owner meets them in Chromium: every refusal is a sentence by
// its field, with what was typed kept.
let t: TestApp;
let smtp: SmtpSink;
let browser: Browser;
let page: Page;
let formId = '';

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'formgate@example.com' } });
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) visited.add(frame.url());
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

/** Logs the shared page in again (a test before may have logged it out). */
async function logIn(email: string): Promise<void> {
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', 'long enough password');
  await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
}

/** Every page the walk visited: audited with axe-core at the end. */
const visited = new Set<string>();

const settle = (click: Promise<unknown>) => Promise.all([page.waitForLoadState('load'), click]);

describe('walked by eye: settings and sign-up errors', () => {
  it('sign-up: a short password is a sentence by its field, the typed email kept', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await page.fill('input[name=email]', 'walker@example.com');
    await page.fill('input[name=displayName]', 'Walker');
    // Past the browser's own minlength check, as a script or an old browser would send it.
    await page.$eval('input[name=password]', (el) => el.removeAttribute('minlength'));
    await page.fill('input[name=password]', 'short');
    await settle(page.click('button.primary'));
    expect(await page.textContent('#password-error')).toBe('Use a password of 8 to 1024 characters.');
    expect(await page.inputValue('input[name=email]')).toBe('walker@example.com');
    expect(await page.textContent('main')).not.toMatch(/Too small|expected string/);
    await page.fill('input[name=password]', 'long enough password');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
  });

  it('an over-long form name is refused by its field, the name kept; a good one says "Form created" (items 5, 8)', async () => {
    const long = 'N'.repeat(1500);
    await page.$eval('input[name=name]', (el) => el.removeAttribute('maxlength'));
    await page.fill('input[name=name]', long);
    await settle(page.click('text=Create form'));
    expect(await page.textContent('#name-error')).toContain('Use at most 200 characters');
    expect(await page.inputValue('input[name=name]')).toBe(long);
    await page.fill('input[name=name]', 'Walk form');
    await Promise.all([page.waitForURL(/\/settings$/), page.click('text=Create form')]);
    expect(await page.textContent('.notice')).toContain('Form created');
    formId = /forms\/(frm_[0-9A-Za-z]+)\//.exec(page.url())![1]!;
  });

  it('host lists: "exa mple.com" is refused with a sentence in both fields; a pasted URL becomes its host', async () => {
    await page.fill('input[name=allowedOrigins]', 'shop.example.com, exa mple.com');
    await page.fill('input[name=allowedRedirectHosts]', 'https://Next.Example.com/after?x=1');
    await settle(page.click('text=Save settings'));
    expect(await page.textContent('#allowedOrigins-error')).toContain('“exa mple.com” is not valid.');
    expect(await page.inputValue('input[name=allowedOrigins]')).toBe('shop.example.com, exa mple.com');
    expect((await t.services.forms.getForm(formId)).allowedOrigins).toEqual([]);

    await page.fill('input[name=allowedOrigins]', 'https://shop.example.com/contact');
    await page.fill('input[name=allowedRedirectHosts]', 'exa mple.com');
    await settle(page.click('text=Save settings'));
    expect(await page.textContent('#allowedRedirectHosts-error')).toContain('“exa mple.com” is not valid.');

    await page.fill('input[name=allowedRedirectHosts]', 'https://Next.Example.com/after?x=1');
    await page.fill('input[name=requiredFields]', 'email, message');
    await settle(page.click('text=Save settings'));
    expect(await page.textContent('.notice')).toContain('Settings saved');
    const saved = await t.services.forms.getForm(formId);
    expect(saved.allowedOrigins).toEqual(['shop.example.com']);
    expect(saved.allowedRedirectHosts).toEqual(['next.example.com']);
    expect(saved.requiredFields).toEqual(['email', 'message']);
    expect(await page.inputValue('input[name=requiredFields]')).toBe('email, message');
    expect(await page.textContent('#access-key-note')).toContain('visible in your page');
  });

  it('the required fields set on the page are enforced on submit', async () => {
    await t.services.forms.updateForm(formId, { allowedOrigins: [] });
    const res = await submit(t, formId, { json: { email: 'a@example.com' } }, JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { fieldErrors: Record<string, string> }).fieldErrors).toEqual({ message: 'This field is required.' });
  });

  it('notification settings: a bad address re-renders the settings page with the error and the typed list', async () => {
    await page.goto(`${t.url}/dashboard/forms/${formId}/settings`);
    await page.fill('textarea[name=recipients]', 'a@b.example, not-an-email');
    await settle(page.click('text=Save notifications'));
    expect(page.url()).toContain(`/dashboard/forms/${formId}/notifications`);
    expect(await page.textContent('h1')).toBe('Settings & snippet');
    expect(await page.textContent('#recipients-error')).toContain('“not-an-email” is not an email address');
    expect(await page.inputValue('textarea[name=recipients]')).toBe('a@b.example, not-an-email');

    await page.fill('textarea[name=recipients]', ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `${x}@b.example`).join('\n'));
    await settle(page.click('text=Save notifications'));
    expect(await page.textContent('#recipients-error')).toContain('at most 5 addresses');
    expect(await page.inputValue('textarea[name=recipients]')).toContain('f@b.example');

    await page.fill('textarea[name=recipients]', 'a@b.example');
    await Promise.all([page.waitForURL(/\/settings#notifications$/), page.click('text=Save notifications')]);
    expect(await page.textContent('.notice')).toContain('Notification settings saved');
  });
});

describe('safety nets and notices', () => {
  it('revoking a key asks first, then says "Key revoked."', async () => {
    await page.goto(`${t.url}/dashboard/keys`);
    await page.fill('input[name=name]', 'Zapier');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/keys`), page.click('text=Create key')]);
    await Promise.all([page.waitForURL(/\/revoke$/), page.click('a:has-text("Revoke…")')]);
    expect(await page.textContent('h1')).toBe('Revoke “Zapier”?');
    const account = await t.services.accounts.getAccountByIdOrEmail('walker@example.com');
    expect((await t.services.apiKeys.listApiKeys(account.id))[0]!.revokedAt).toBeNull();
    await Promise.all([page.waitForURL(`${t.url}/dashboard/keys`), page.click('button:has-text("Revoke key")')]);
    expect(await page.textContent('.notice')).toBe('Key revoked.');
    expect((await t.services.apiKeys.listApiKeys(account.id))[0]!.revokedAt).not.toBeNull();
  });

  it('marking a submission not spam says so', async () => {
    const res = await submit(t, formId, { json: { email: 'a@example.com', message: 'hi', _honey: 'bot' } }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    await page.goto(`${t.url}/dashboard/submissions/${submissionId}`);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Not spam")')]);
    expect(await page.textContent('.notice')).toBe('Marked not spam.');
    expect(await page.textContent('#spam-state')).toBe('Inbox');
  });

  it('erasure previews the count and deletes only when confirmed', async () => {
    const res = await submit(t, formId, { json: { email: 'Erase.Me@example.com', message: 'hi' } }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    await page.goto(`${t.url}/dashboard/account`);
    await page.fill('form[action="/dashboard/account/erase"] input[name=email]', 'erase.me@example.com');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Find submissions to erase")')]);
    expect(await page.textContent('h1')).toBe('Erase 1 submission?');
    expect(await page.textContent('#confirm-question')).toContain('erase.me@example.com');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/account`), page.click('a:has-text("Cancel")')]);
    expect(await storedSubmission(t, submissionId)).toBeDefined();
    await page.fill('form[action="/dashboard/account/erase"] input[name=email]', 'erase.me@example.com');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Find submissions to erase")')]);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/account`), page.click('button:has-text("Erase 1 submission")')]);
    expect(await page.textContent('.notice')).toContain('1 submission(s) with erase.me@example.com erased');
    expect(await storedSubmission(t, submissionId)).toBeUndefined();
  });

  it('sessions show the device and address, to the owner only', async () => {
    await page.goto(`${t.url}/dashboard/account`);
    const device = (await page.textContent('#sessions .session-device'))!;
    expect(device).toMatch(/Chrom/);
    expect(device).toMatch(/ on Linux/);
    expect(await page.textContent('#sessions .session-ip')).toBe('127.0.0.1');
    expect(await page.$$eval('#sessions th', (ths) => ths.every((th) => th.textContent!.trim() !== ''))).toBe(true);
  });

  it('logging out says "Logged out."', async () => {
    await page.goto(`${t.url}/dashboard/forms`);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/login`), page.click('button:has-text("Log out")')]);
    expect(await page.textContent('.notice')).toBe('Logged out.');
  });
});

describe('export what is shown', () => {
  it('the Export buttons carry the search and tab, say so, and export only those rows, time first', async () => {
    const account = await t.services.accounts.getAccountByIdOrEmail('walker@example.com');
    await logIn(account.email);
    const form = await t.services.forms.createForm(account.id, { name: 'Exports' });
    for (const fields of [{ message: 'refund please', email: 'x@example.com' }, { message: 'other thing' }, { message: 'refund spam', _honey: 'bot' }]) {
      expect((await submit(t, form.id, { json: fields }, JSON_ACCEPT)).status).toBe(200);
    }
    await page.goto(`${t.url}/dashboard/forms/${form.id}/submissions?q=refu`);
    expect(await page.textContent('#export-csv')).toBe('Export CSV (inbox, this search)');
    const inbox = await page.request.get((await page.getAttribute('#export-csv', 'href'))!.replace(/^\//, `${t.url}/`));
    const lines = (await inbox.text()).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe('createdAt,message,email,id,isSpam,spamReason,country,state,assignee,tags');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('refund please');

    await page.goto(`${t.url}/dashboard/forms/${form.id}/submissions?q=refu&spam=1`);
    expect(await page.textContent('#export-ndjson')).toBe('Export NDJSON (spam, this search)');
    const spam = await page.request.get((await page.getAttribute('#export-ndjson', 'href'))!.replace(/^\//, `${t.url}/`));
    const rows = (await spam.text()).trimEnd().split('\n').map((l) => JSON.parse(l) as { payload: Record<string, string> });
    expect(rows.map((r) => r.payload.message)).toEqual(['refund spam']);
  });
});

describe('accessibility', () => {
  it('every page the walk visited has no serious or critical axe-core violation', async () => {
    expect(visited.size).toBeGreaterThan(10);
    const failing: string[] = [];
    for (const url of visited) {
      await page.goto(url);
      for (const violation of await seriousViolations(page)) failing.push(`${new URL(url).pathname}: ${violation}`);
    }
    expect(failing).toEqual([]);
  });
});

describe('small things at 390 px', () => {
  it('the snippet URL is not cut off, the email log is stacked, an empty chart says so', async () => {
    const account = await t.services.accounts.getAccountByIdOrEmail('walker@example.com');
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await phone.context().addCookies(await page.context().cookies());
    const empty = await t.services.forms.createForm(account.id, { name: 'Empty' });
    await phone.goto(`${t.url}/dashboard/forms/${empty.id}/submissions`);
    expect(await phone.textContent('.chart-highest')).toBe('no submissions in these 30 days');
    // Older submissions only: still no "highest day" that is not there.
    await insertSubmissions(t.services, empty.id, [{ createdAt: new Date(Date.now() - 45 * 86_400_000).toISOString() }]);
    await phone.reload();
    expect(await phone.textContent('.chart-highest')).toBe('no submissions in these 30 days');
    expect(await phone.textContent('#chart-inbox')).toBe('0');

    await phone.goto(`${t.url}/dashboard/forms/${formId}/settings`);
    const url = await phone.$eval('#submit-url', (el) => {
      const box = el.getBoundingClientRect();
      return { right: box.right, width: document.documentElement.clientWidth, text: el.textContent };
    });
    expect(url.text).toBe(`${t.url}/v1/submit/${formId}`);
    expect(url.right).toBeLessThanOrEqual(url.width);

    // A notification of a submission: its log entry carries the submission's ID and the SMTP reply.
    await t.services.notifications.setRecipients(formId, ['phone@example.net'], { verified: true });
    expect((await submit(t, formId, { json: { email: 'a@example.com', message: 'to the phone' } }, JSON_ACCEPT)).status).toBe(200);
    await waitFor(() => smtp.to('phone@example.net').length === 1, 15_000, 'the notification');
    await t.services.outbox.settle();
    await phone.goto(`${t.url}/dashboard/forms/${formId}/email-log`);
    expect(await phone.$$eval('#email-log tbody tr', (rows) => rows.length)).toBeGreaterThan(0);
    expect(await phone.$eval('#email-log thead', (el) => getComputedStyle(el).display)).toBe('none');
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    // Nor does any card scroll sideways inside: long IDs and SMTP replies wrap.
    expect(await phone.$$eval('.card, .table-wrap', (boxes) => boxes.filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.outerHTML.slice(0, 80)))).toEqual([]);
    const codes = await phone.$$eval('#email-log code', (els) => els.map((el) => ({ text: el.textContent, right: el.getBoundingClientRect().right, width: document.documentElement.clientWidth })));
    expect(codes.some((c) => /^sub_/.test(c.text ?? ''))).toBe(true);
    for (const code of codes) expect(code.right, code.text ?? '').toBeLessThanOrEqual(code.width);
    expect(await phone.$eval('#email-log time', (el) => el.getAttribute('datetime'))).toMatch(/Z$/);
    await phone.context().close();
  });
});
