import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { accessibilityAudit } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { insertSubmissions } from '../../test/helpers/factories.js';
import { storedSubmission } from '../../test/helpers/submit.js';

let t: TestApp;
let browser: Browser;
let page: Page;
let audit: ReturnType<typeof accessibilityAudit>;
let formId = '';
let others: string[] = [];
let held: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ baseUrlIsOwnAddress: true });
  browser = await launchChromium();
  audit = accessibilityAudit(t.url);
  page = audit.watch(await (await browser.newContext()).newPage());
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const at = (i: number, day = 1) => new Date(Date.UTC(2026, 8, day) + i * 60_000).toISOString();

describe('working through the team inbox in Chromium', () => {
  it('filters, selects all matching, and applies bulk actions', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await page.fill('input[name=email]', 'team@example.com');
    await page.fill('input[name=displayName]', 'Team');
    await page.fill('input[name=password]', 'correct horse battery');
    await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
    await page.fill('input[name=name]', 'Support');
    await Promise.all([page.waitForURL(/\/settings$/), page.click('text=Create form')]);
    formId = /forms\/(frm_[0-9A-Za-z]+)\//.exec(page.url())![1]!;
    const refunds = await insertSubmissions(t.services, formId, Array.from({ length: 55 }, (_, i) => ({ createdAt: at(i), payload: { message: `refund please ${i}` } })));
    others = await insertSubmissions(t.services, formId, Array.from({ length: 4 }, (_, i) => ({ createdAt: at(i, 2), payload: { message: `hello ${i}` } })));
    held = await insertSubmissions(t.services, formId, [{ createdAt: at(0, 3), payload: { message: 'caught by a trap' }, isSpam: true }]);

    await page.goto(`${t.url}/dashboard/forms`);
    expect(await page.textContent(`tr[data-form="${formId}"] .unread-count`)).toBe('59');
    await audit.check(page);

    // Search: the total is shown, and the page's rows can all be ticked at once.
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    await page.fill('input[name=q]', 'refund');
    await Promise.all([page.waitForURL(/q=refund/), page.click('button:has-text("Search")')]);
    expect(await page.textContent('#position')).toBe('Showing 1–50 of 55 matches');
    await page.check('#select-page');
    expect(await page.locator('input[name=ids]:checked').count()).toBe(50);
    await page.uncheck(`input[name=ids][value="${refunds[54]}"]`);
    expect(await page.locator('#select-page').evaluate((el) => (el as HTMLInputElement).indeterminate)).toBe(true);
    await page.check(`input[name=ids][value="${refunds[54]}"]`);
    await audit.check(page);

    // All 55 matching, not only the 50 shown: marked done, the others untouched.
    await page.check('#scope-all');
    await Promise.all([page.waitForURL(/q=refund/), page.click('button[name=action][value=done]')]);
    expect(await page.textContent('.notice')).toContain('Marked 55 submissions done.');
    const states = await t.services.inbox.triageOf([...refunds, ...others]);
    expect(refunds.filter((id) => states.get(id)!.state === 'done')).toHaveLength(55);
    expect(others.filter((id) => states.get(id)!.state === 'done')).toHaveLength(0);
    await audit.check(page);

    // The open ones by filter, tagged in bulk.
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    await page.selectOption('select[name=state]', 'open');
    await Promise.all([page.waitForURL(/state=open/), page.click('button:has-text("Search")')]);
    expect(await page.textContent('#position')).toBe('Showing 1–4 of 4 matches');
    await page.check('#select-page');
    await page.fill('#bulk input[name=tag]', 'Follow-up');
    await Promise.all([page.waitForURL(/state=open/), page.click('button[name=action][value=tag]')]);
    expect(await page.textContent('.notice')).toContain('Tagged 4 submissions “follow-up”.');
    expect(await page.locator('td.tags .tag').first().textContent()).toBe('follow-up');
    await audit.check(page);
  });

  it('triages one submission from its page, and asks before "Mark not spam" sends anything', async () => {
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions?state=open`);
    // One submission: opened is read; assigned, noted, done from its page.
    await Promise.all([page.waitForURL(/\/dashboard\/submissions\//), page.click(`a[href="/dashboard/submissions/${others[3]}"]`)]);
    expect((await t.services.inbox.triageOfOne(others[3]!)).read).toBe(true);
    await page.selectOption('#assignee', { label: 'team@example.com' });
    await Promise.all([page.waitForLoadState('load'), page.click('button[name=action][value=assign]')]);
    await page.fill('textarea[name=notes]', 'Called back, waiting for the receipt.');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Save notes")')]);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Mark done")')]);
    expect(await page.textContent('#triage-state')).toBe('Done');
    expect(await page.inputValue('textarea[name=notes]')).toBe('Called back, waiting for the receipt.');
    await audit.check(page);
    expect(await t.services.inbox.triageOfOne(others[3]!)).toMatchObject({ state: 'done', assignee: 'team@example.com', tags: ['follow-up'] });

    // Spam held back: "Mark not spam" says what happens before doing it.
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions?spam=1`);
    await page.check(`input[name=ids][value="${held[0]}"]`);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Mark not spam")')]);
    expect(await page.textContent('h1')).toBe('Mark 1 submission not spam?');
    expect(await page.textContent('#confirm-question')).toContain('has nothing to send them to');
    await audit.check(page);
    await Promise.all([page.waitForURL(/spam=1/), page.click('button:has-text("Mark 1 submission not spam")')]);
    expect((await storedSubmission(t, held[0]!))!.is_spam).toBe(0);

    // At a phone's width the list and its actions are still there and accessible.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/dashboard/forms/${formId}/submissions?state=done`);
    expect(await page.isVisible('#select-page')).toBe(true);
    await audit.check(page);
  });
});
