import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { accessibilityAudit } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { testDialect } from '../../test/helpers/database.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.js';
import { countStored, JSON_ACCEPT, storedSubmission, submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

let t: TestApp;
let browser: Browser;
let page: Page;
let receiver: HttpsReceiver;
let formId = '';
let accountId = '';
/** Axe-core on every page this journey loads. */
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

const receivedFor = (submissionId: string) => receiver.received.filter((r) => String(r.headers['webhook-id']).startsWith(`${submissionId}.`));

async function post(fields: Record<string, unknown>): Promise<string> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

describe('spam rules, triage and data lifecycle in Chromium', () => {
  it('signs up, creates a form and sets spam rules, privacy and the Turnstile site key', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await audit.check(page);
    await page.fill('input[name=email]', 'owner@example.com');
    await page.fill('input[name=displayName]', 'Owner');
    await page.fill('input[name=password]', 'correct horse battery');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    await audit.check(page);
    await page.fill('input[name=name]', 'Contact');
    await Promise.all([page.waitForURL(/\/settings$/), page.click('text=Create form')]);
    formId = /forms\/(frm_[0-9A-Za-z]+)\//.exec(page.url())![1]!;
    accountId = (await t.services.accounts.getAccountByIdOrEmail('owner@example.com')).id;

    expect(await page.textContent('#turnstile-keys')).toContain('Cloudflare dashboard');
    await audit.check(page);
    // The bot-check trap: no secret anywhere is refused with the field named, nothing saved.
    await page.selectOption('select[name=botCheck]', 'turnstile');
    await page.click('text=Save settings');
    expect(await page.textContent('#turnstileSecret-error')).toContain('TURNSTILE_SECRET_KEY');
    await audit.check(page);
    expect((await t.services.forms.getForm(formId)).requireBotCheck).toBe(false);

    await page.goto(`${t.url}/dashboard/forms/${formId}/settings`);
    await page.selectOption('select[name=botCheck]', 'turnstile');
    await page.fill('input[name=turnstileSecret]', 'my-secret');
    await page.fill('input[name=turnstileSiteKey]', '0x4AAAAAAABkMYinukE8nzY');
    await page.fill('textarea[name=blockedTerms]', 'casino\nCheap Pills');
    await page.fill('textarea[name=blockedEmails]', '@spam.example');
    await page.fill('input[name=maxLinks]', '2');
    await page.fill('input[name=retentionDays]', '30');
    await page.selectOption('select[name=storeIp]', 'none');
    await page.click('text=Save settings');
    expect(await page.textContent('.notice')).toContain('Settings saved.');
    const snippet = (await page.textContent('#snippet'))!;
    expect(snippet).toContain('data-sitekey="0x4AAAAAAABkMYinukE8nzY"');
    expect(snippet).not.toContain('YOUR_TURNSTILE_SITE_KEY');
    expect(await t.services.forms.getForm(formId)).toMatchObject({
      blockedTerms: ['casino', 'cheap pills'],
      blockedEmails: ['@spam.example'],
      maxLinks: 2,
      retentionDays: 30,
      storeIp: 'none',
    });

    // A bad value is refused with the setting named.
    await page.fill('input[name=retentionDays]', '5000');
    await page.click('text=Save settings');
    expect(await page.textContent('#retentionDays-error')).toContain('1 to 3650');
    await audit.check(page);
    await page.screenshot({ path: `/tmp/dashboard-spam-settings-${testDialect}.png`, fullPage: true });
    // Back to no bot check (no Turnstile stand-in here), rules kept.
    await t.services.forms.updateForm(formId, { requireBotCheck: false });
  });

  it('shows the reason on the spam tab, and "Not spam" on the detail page sends it to the hook once', async () => {
    await t.services.accounts.setPlan('owner@example.com', 'pro');
    await t.services.hooks.createHook(accountId, { formId, targetUrl: `${receiver.url}/in` });
    const spamId = await post({ message: 'win at the casino', email: 'a@b.example' });
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions?spam=1`);
    expect(await page.textContent('td.reason')).toBe('it contains a blocked word');
    await audit.check(page);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/submissions/${spamId}`), page.click(`a[href="/dashboard/submissions/${spamId}"]`)]);
    expect(await page.textContent('#spam-state')).toBe('Spam: it contains a blocked word');
    await audit.check(page);
    expect(await page.textContent('table.fields:nth-of-type(2)')).toContain('not stored');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/submissions/${spamId}`), page.click('button:has-text("Not spam")')]);
    expect(await page.textContent('#spam-state')).toBe('Inbox');
    await waitFor(() => receivedFor(spamId).length === 1, 15_000, 'the delivery of the submission marked not spam');
    expect(JSON.parse(receivedFor(spamId)[0]!.body)).toMatchObject({ id: spamId, ip: '' });

    // Marked spam and back again from the page: nothing is sent a second time.
    await Promise.all([page.waitForURL(`${t.url}/dashboard/submissions/${spamId}`), page.click('button:has-text("Mark as spam")')]);
    expect(await page.textContent('#spam-state')).toBe('Spam: marked spam by hand');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/submissions/${spamId}`), page.click('button:has-text("Not spam")')]);
    const later = await post({ message: 'hello' });
    await waitFor(() => receivedFor(later).length === 1, 15_000, 'a later delivery');
    expect(receivedFor(spamId)).toHaveLength(1);
  });

  it('marks the checked rows of the list with one POST', async () => {
    const a = await post({ message: 'one' });
    const b = await post({ message: 'two' });
    const c = await post({ message: 'three' });
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    await page.check(`input[name=ids][value="${a}"]`);
    await page.check(`input[name=ids][value="${c}"]`);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms/${formId}/submissions`), page.click('button:has-text("Mark spam")')]);
    expect(await page.textContent('.notice')).toContain('Marked 2 submissions spam.');
    await audit.check(page);
    expect((await storedSubmission(t, a))!.spam_reason).toBe('marked');
    expect((await storedSubmission(t, c))!.spam_reason).toBe('marked');
    expect((await storedSubmission(t, b))!.is_spam).toBe(0);
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions?spam=1`);
    await page.check(`input[name=ids][value="${a}"]`);
    await Promise.all([page.waitForURL(/\/submissions\?spam=1/), page.click('button:has-text("Mark not spam")')]);
    expect((await storedSubmission(t, a))!.is_spam).toBe(0);
    expect((await storedSubmission(t, c))!.is_spam).toBe(1);
  });

  it('erases a person\'s submissions from the account page', async () => {
    const erased = await post({ message: 'hi', email: 'Person@Example.org' });
    const kept = await post({ message: 'hi', email: 'other@example.org' });
    await page.goto(`${t.url}/dashboard/account`);
    await page.fill('form[action="/dashboard/account/erase"] input[name=email]', 'person@example.org');
    // The first step only counts: nothing is deleted before the confirmation.
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Find submissions to erase")')]);
    expect(await page.textContent('h1')).toBe('Erase 1 submission?');
    await audit.check(page);
    expect(await storedSubmission(t, erased)).toBeDefined();
    await Promise.all([page.waitForURL(`${t.url}/dashboard/account`), page.click('button:has-text("Erase 1 submission")')]);
    expect(await page.textContent('.notice')).toContain('1 submission(s) with person@example.org erased');
    await audit.check(page);
    expect(await storedSubmission(t, erased)).toBeUndefined();
    expect(await storedSubmission(t, kept)).toBeDefined();
  });

  it('deletes the form after a confirmation that names it', async () => {
    expect(await countStored(t, formId)).toBeGreaterThan(0);
    await page.goto(`${t.url}/dashboard/forms/${formId}/settings`);
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms/${formId}/delete`), page.click('text=Delete form…')]);
    expect(await page.textContent('h1')).toBe('Delete “Contact”?');
    await audit.check(page);
    await page.fill('input[name=confirmName]', 'Contac');
    await page.click('button.danger');
    expect(await page.textContent('[role=alert]')).toContain('“Contact”');
    await audit.check(page);
    expect(await t.services.forms.findForm(formId)).toBeDefined();
    await page.fill('input[name=confirmName]', 'Contact');
    await page.click('button.danger');
    expect(await page.textContent('.notice')).toContain('Form “Contact” deleted.');
    await audit.check(page);
    expect(await t.services.forms.findForm(formId)).toBeUndefined();
    expect(await countStored(t, formId)).toBe(0);
    expect(await t.services.hooks.listHooks(accountId)).toEqual([]);
  });

  it('audited every page it loaded with axe-core', () => {
    expect(audit.checked().length).toBeGreaterThan(7);
    expect(audit.unchecked()).toEqual([]);
  });
});
