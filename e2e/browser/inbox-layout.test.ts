import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { createAccount, createForm, insertSubmissions } from '../../test/helpers/factories.js';

// The team inbox as it is laid out: the bulk bar appears with a ticked row (and is simply there
// without JavaScript), select-all boxes sit beside their words, dates stay on one line at
// 1440 px, and a submission's triage sits beside its content on a wide screen, below it on a phone.
const PASSWORD = 'long enough password';

let t: TestApp;
let browser: Browser;
let storage: Awaited<ReturnType<BrowserContext['storageState']>>;
let formId = '';
let submissionId = '';

beforeAll(async () => {
  t = await startTestApp({ baseUrlIsOwnAddress: true });
  browser = await launchChromium();
  const owner = await createAccount(t.services, { email: 'layout@example.com', password: PASSWORD, planId: 'business' });
  const form = await createForm(t.services, owner.id, { name: 'Support' });
  formId = form.id;
  const ids = await insertSubmissions(
    t.services,
    form.id,
    Array.from({ length: 8 }, (_, i) => ({
      createdAt: new Date(Date.UTC(2026, 10, 20, 9, i)).toISOString(),
      payload: { name: `Grace Hopper ${i}`, email: `grace${i}@example.com`, message: `My order ${i} arrived broken, the box was crushed and the ${'very '.repeat(20)}long story goes on.` },
    })),
  );
  submissionId = ids[0]!;
  await t.services.inbox.apply(owner.id, [submissionId], { kind: 'tag', tag: 'refund' });
  await t.services.inbox.setNotes(owner.id, submissionId, 'Called back, waiting for the receipt.', owner.id);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name=email]', 'layout@example.com');
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${t.url}/dashboard/forms`), page.click('button.primary')]);
  storage = await context.storageState();
  await context.close();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(path: string, options: Parameters<Browser['newContext']>[0]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ storageState: storage, ...options });
  const page = await context.newPage();
  await page.goto(`${t.url}${path}`);
  return { context, page };
}

const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;
const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the team inbox laid out in Chromium', () => {
  it('shows the bulk actions once a row is ticked, boxes beside their words, dates on one line at 1440 px', async () => {
    const { context, page } = await open(`/dashboard/forms/${formId}/submissions`, { viewport: { width: 1440, height: 900 } });
    expect(await page.isVisible('#bulk-actions')).toBe(false);
    expect(await page.isVisible('#bulk-hint')).toBe(true);
    await page.check(`input[name=ids][value="${submissionId}"]`);
    expect(await page.isVisible('#bulk-actions')).toBe(true);
    await page.uncheck(`input[name=ids][value="${submissionId}"]`);
    expect(await page.isVisible('#bulk-actions')).toBe(false);
    await page.check('#select-page');
    expect(await page.isVisible('#bulk-actions')).toBe(true);
    await page.uncheck('#select-page');
    await page.check('#scope-all');
    expect(await page.isVisible('#bulk-actions')).toBe(true);

    // Each select-all box on the line of its words: vertically inside the label, the words after it.
    for (const [input, label] of [['#select-page', 'label.select-page'], ['#scope-all', 'label.select-all']] as const) {
      const [b, l] = [await box(page, input), await box(page, label)];
      expect(l.height, label).toBeLessThan(b.height * 2.5);
      expect(b.y, label).toBeGreaterThanOrEqual(l.y - 1);
      expect(b.y + b.height, label).toBeLessThanOrEqual(l.y + l.height + 1);
      expect(l.width, label).toBeGreaterThan(b.width + 40);
    }

    // One line per submission: the time as one line box, and the row about one line tall.
    const received = page.locator('td.received time').first();
    expect(await received.evaluate((el) => el.getClientRects().length)).toBe(1);
    const row = await box(page, 'table.inbox-list tbody tr');
    const line = await received.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    expect(row.height).toBeLessThan(line * 3.2);
    expect(await page.locator(`table.inbox-list tr:has(input[value="${submissionId}"]) td.tags .tag`).textContent()).toBe('refund');
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('shows the bulk actions at once without JavaScript', async () => {
    const { context, page } = await open(`/dashboard/forms/${formId}/submissions`, { viewport: { width: 1440, height: 900 }, javaScriptEnabled: false });
    expect(await page.isVisible('#bulk-actions')).toBe(true);
    expect(await page.isVisible('#bulk-hint')).toBe(false);
    await context.close();
  });

  it('puts the triage beside the content at 1440 px and below it at 390 px, with no sideways scroll', async () => {
    const wide = await open(`/dashboard/submissions/${submissionId}`, { viewport: { width: 1440, height: 900 } });
    const [content, triage] = [await box(wide.page, '#submission-content'), await box(wide.page, '#submission-triage')];
    expect(triage.x).toBeGreaterThanOrEqual(content.x + content.width);
    expect(Math.abs(triage.y - content.y)).toBeLessThan(5);
    expect(content.width).toBeGreaterThan(triage.width);
    expect(await wide.page.textContent('#notes-by')).toContain('Last written by layout@example.com');
    expect(await noSidewaysScroll(wide.page)).toBe(true);
    expect(await seriousViolations(wide.page)).toEqual([]);
    await wide.context.close();

    const phone = await open(`/dashboard/submissions/${submissionId}`, { viewport: { width: 390, height: 844 } });
    const [c, tr] = [await box(phone.page, '#submission-content'), await box(phone.page, '#submission-triage')];
    expect(tr.y).toBeGreaterThanOrEqual(c.y + c.height - 1);
    expect(tr.x + tr.width).toBeLessThanOrEqual(390);
    expect(await noSidewaysScroll(phone.page)).toBe(true);
    await phone.page.goto(`${t.url}/dashboard/forms/${formId}/submissions`);
    expect(await noSidewaysScroll(phone.page)).toBe(true);
    expect(await seriousViolations(phone.page)).toEqual([]);
    await phone.context.close();
  });
});
