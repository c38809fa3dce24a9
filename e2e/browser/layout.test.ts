import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { servePage } from '../../test/helpers/browser.js';
import { createOwner } from '../../test/helpers/factories.js';
import { startSeededPages, type SeededPages } from '../../test/helpers/seeded-pages.js';

// The layout as a person sees it in Chromium, measured: boxes inside their cards, labels apart,
// words whole, buttons level with their fields, check boxes on their words' line, and the hosted
// visitor pages in the dark scheme.
let seeded: SeededPages;
let t: TestApp;
let browser: Browser;
let pages: SeededPages['pages'];
beforeAll(async () => {
  seeded = await startSeededPages();
  ({ t, browser, pages } = seeded);
});
afterAll(async () => {
  await seeded?.close();
});

/** A signed-in page of the owner's at this width (light unless asked). */
async function ownerTab(width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const context = await browser.newContext({ colorScheme, viewport: { width, height: 900 } });
  await context.addCookies(seeded.ownerCookies);
  return context.newPage();
}

describe('what a person sees', () => {
  it('"Send the confirmation link again" sits inside its card, at 1440 and 390 px', async () => {
    for (const width of [1440, 390]) {
      const page = await ownerTab(width);
      await page.goto(`${t.url}${pages['/dashboard/forms/:id/settings']!.signedIn![0]}`);
      const button = page.locator('button', { hasText: 'Send the confirmation link again' });
      expect(await button.count()).toBe(1);
      const [inner, card] = [(await button.boundingBox())!, (await button.evaluate((el) => el.closest('.card')!.getBoundingClientRect().toJSON())) as DOMRect];
      expect(inner.x, `left at ${width} px`).toBeGreaterThanOrEqual(card.x);
      expect(inner.x + inner.width, `right at ${width} px`).toBeLessThanOrEqual(card.x + card.width);
      expect(inner.y + inner.height, `bottom at ${width} px`).toBeLessThanOrEqual(card.y + card.height);
      // Nor scrolled out of sight inside the card.
      expect(await button.evaluate((el) => el.closest('.card')!.scrollWidth - el.closest('.card')!.clientWidth)).toBeLessThanOrEqual(0);
      await page.context().close();
    }
  });

  it("at 390 px the forms list's labels do not run into each other", async () => {
    const page = await ownerTab(390);
    await page.goto(`${t.url}/dashboard/forms`);
    const cells = await page.$$eval('#forms-table tbody tr:first-child td', (tds) =>
      tds.map((td) => {
        const box = td.getBoundingClientRect();
        const label = getComputedStyle(td, '::before');
        return { label: td.dataset.label, top: box.top, bottom: box.bottom, labelHeight: parseFloat(label.height), labelWidth: parseFloat(label.width) };
      }),
    );
    expect(cells.map((c) => c.label)).toContain('Last submission');
    for (const [i, cell] of cells.entries()) {
      // The label is drawn, is as tall as its words, and its cell holds it...
      expect(cell.labelHeight, cell.label).toBeGreaterThan(10);
      expect(cell.bottom - cell.top, cell.label).toBeGreaterThanOrEqual(cell.labelHeight);
      // ...and the next cell starts below this one.
      if (i > 0) expect(cell.top, `${cell.label} below ${cells[i - 1]!.label}`).toBeGreaterThanOrEqual(cells[i - 1]!.bottom - 0.5);
    }
    // "Last submission" takes two lines at this width: the case that overlapped.
    const last = cells.find((c) => c.label === 'Last submission')!;
    expect(last.labelHeight).toBeGreaterThan(cells.find((c) => c.label === 'Status')!.labelHeight * 1.5);
    await page.context().close();
  });

  it('the snippet and the previews break lines between words, not inside them', async () => {
    for (const width of [390, 1440]) {
      const page = await ownerTab(width);
      const broken = async (selector: string) =>
        page.$eval(selector, (root) => {
          const split: string[] = [];
          const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const match of node.textContent!.matchAll(/[A-Za-z]{2,16}/g)) {
              const range = document.createRange();
              range.setStart(node, match.index);
              range.setEnd(node, match.index + match[0].length);
              const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
              if (lines.size > 1) split.push(match[0]);
            }
          }
          return split;
        });
      await page.goto(`${t.url}${pages['/dashboard/forms/:id/settings']!.signedIn![0]}`);
      for (const selector of ['#snippet', '#preview-text']) expect(await broken(selector), `${selector} at ${width} px`).toEqual([]);
      // The long address in the preview still wraps inside its box.
      expect(await page.$eval('#preview-text', (el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      await page.goto(`${t.url}${pages['/dashboard/forms/:id/submissions']!.signedIn![0]}`);
      expect(await broken('td.preview'), `the list's preview at ${width} px`).toEqual([]);
      await page.context().close();
    }
  });

  it('a button stands level with the field beside it (within 2 px)', async () => {
    const submission = pages['/dashboard/submissions/:id']!.signedIn![0]!;
    const buttons: Array<{ path: string; button: string; tick?: string }> = [
      { path: '/dashboard/forms', button: 'form[action="/dashboard/forms"] button' },
      { path: '/dashboard/keys', button: 'form[action="/dashboard/keys"] button' },
      { path: '/dashboard/members', button: 'form[action="/dashboard/members/invitations"] button' },
      // The bulk bar shows once a row is ticked.
      { path: pages['/dashboard/forms/:id/submissions']!.signedIn![0]!, button: '#bulk button[value=tag]', tick: 'input[name=ids]' },
      { path: submission, button: 'button[value=tag]' },
      { path: submission, button: 'button[value=assign]' },
      { path: '/dashboard/hooks', button: 'form.redeliver button' },
    ];
    for (const width of [1440, 390]) {
      const page = await ownerTab(width);
      for (const { path, button, tick } of buttons) {
        await page.goto(`${t.url}${path}`);
        if (tick) await page.locator(tick).first().check();
        await page.locator(button).first().waitFor({ state: 'visible' });
        // The field just before the button in its row: the one a person reads it with.
        const [pressed, field, startsLine] = await page.locator(button).first().evaluate((el) => {
          const own = el.getBoundingClientRect();
          const row = el.closest('form, .row')!;
          const fields = [...row.querySelectorAll('input:not([type=hidden]):not([type=checkbox]), select')]
            .map((f) => f.getBoundingClientRect())
            .filter((f) => f.right <= own.left && f.bottom > own.top && f.top < own.bottom);
          const startsLine = Math.abs(own.left - row.getBoundingClientRect().left) < 1;
          return [own.toJSON(), fields.at(-1)?.toJSON(), startsLine] as [DOMRect, DOMRect | undefined, boolean];
        });
        const where = `${button} on ${path} at ${width} px`;
        // On a phone a button may take the next line; then it starts that line.
        if (field === undefined && width === 390 && startsLine) continue;
        expect(field, `${where}: a field beside it`).toBeDefined();
        if (pressed.height < field!.height - 8) {
          // A small button beside a field: centred on it.
          expect(Math.abs(pressed.top + pressed.bottom - field!.top - field!.bottom) / 2, `${where}: centres`).toBeLessThanOrEqual(2);
        } else {
          expect(Math.abs(pressed.top - field!.top), `${where}: tops`).toBeLessThanOrEqual(2);
          expect(Math.abs(pressed.bottom - field!.bottom), `${where}: bottoms`).toBeLessThanOrEqual(2);
        }
      }
      await page.context().close();
    }
  });

  it('a check box is on the same line as its words, just before them', async () => {
    const page = await ownerTab(1440);
    const misplaced = () =>
      page.$$eval('label', (labels) =>
        labels
          .filter((label) => label.querySelector('input[type=checkbox]') && label.getClientRects().length > 0)
          .flatMap((label) => {
            const box = label.querySelector('input[type=checkbox]')!.getBoundingClientRect();
            const text = [...label.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '')!;
            const range = document.createRange();
            range.selectNodeContents(text);
            const first = [...range.getClientRects()].find((r) => r.width > 0)!;
            const middle = first.top + first.height / 2;
            const sameLine = middle > box.top && middle < box.bottom;
            const before = box.right <= first.left && first.left - box.right < 16;
            return sameLine && before ? [] : [label.textContent!.trim()];
          }),
      );
    await page.goto(`${t.url}${pages['/dashboard/forms/:id/submissions']!.signedIn![0]}`);
    expect(await page.locator('label:has(#select-page)').isVisible()).toBe(true);
    expect(await misplaced()).toEqual([]);
    await page.goto(`${t.url}${pages['/dashboard/forms/:id/settings']!.signedIn![0]}`);
    expect(await page.locator('label:has(input[type=checkbox])').count()).toBeGreaterThan(2);
    expect(await misplaced()).toEqual([]);
    await page.context().close();
  });

  it('the thank-you, error and unsubscribe pages follow the dark scheme, and stay light in light', async () => {
    const { form } = await createOwner(t.services, { form: { requiredFields: ['email'] } });
    const site = await servePage(`<!doctype html><html lang="en"><title>Site</title><body>
      <form method="post" action="${t.url}/v1/submit/${form.id}"><input name="name" value="Ada" aria-label="Name"><button type="submit">Send</button></form></body></html>`);
    const lightness = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number) as [number, number, number];
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    };
    try {
      for (const colorScheme of ['dark', 'light'] as const) {
        const context = await browser.newContext({ colorScheme, viewport: { width: 390, height: 800 } });
        const page = await context.newPage();
        const shown: Array<{ where: string; open: () => Promise<unknown> }> = [...pages['/thanks']!.signedOut!, ...pages['/v1/unsubscribe/:token']!.signedOut!].map((path) => ({
          where: path,
          open: () => page.goto(`${t.url}${path}`),
        }));
        // The error page the submit answers itself, naming the refused field.
        shown.push({
          where: 'the submit\'s error page',
          open: async () => {
            await page.goto(site.url);
            await Promise.all([page.waitForURL(`${t.url}/v1/submit/${form.id}`), page.click('button[type=submit]')]);
            expect(await page.locator('main li strong').textContent()).toBe('email');
          },
        });
        for (const { where: path, open } of shown) {
          await open();
          const colours = await page.evaluate(() => ({
            page: getComputedStyle(document.body).backgroundColor,
            card: getComputedStyle(document.querySelector('main')!).backgroundColor,
            text: getComputedStyle(document.querySelector('h1')!).color,
            words: getComputedStyle(document.querySelector('main p')!).color,
          }));
          const where = `${path} in ${colorScheme}`;
          if (colorScheme === 'dark') {
            expect(lightness(colours.page), where).toBeLessThan(0.2);
            expect(lightness(colours.card), where).toBeLessThan(0.2);
            expect(lightness(colours.text), where).toBeGreaterThan(0.7);
            expect(lightness(colours.words), where).toBeGreaterThan(0.6);
          } else {
            expect(lightness(colours.page), where).toBeGreaterThan(0.9);
            expect(lightness(colours.text), where).toBeLessThan(0.3);
          }
          expect(await seriousViolations(page), where).toEqual([]);
        }
        await context.close();
      }
    } finally {
      await site.close();
    }
  });
});
