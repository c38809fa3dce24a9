import type { RouteOptions } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/helpers/axe.js';
import { startSeededPages, type SeededPages } from '../../test/helpers/seeded-pages.js';

// Every page a person can open, in light and dark, on a phone and a wide screen: no serious or
// critical axe-core finding and no sideways scrolling. The list comes from the routes the app
// registers, so a new page is crawled (or must be named below as not a page) from its first day.

/** GET routes that answer no HTML page of their own, and why. */
const NOT_PAGES: Record<string, string> = {
  '/dashboard/assets/app.css': 'the stylesheet',
  '/dashboard/assets/app.js': 'the page script',
  '/favicon.ico': 'the icon',
  '/dashboard/forms/:id/export.csv': 'a download',
  '/dashboard/forms/:id/export.ndjson': 'a download',
  '/dashboard/audit.ndjson': 'a download',
  '/dashboard/files/:id': 'an uploaded file',
  '/dashboard/assets/sealed.js': 'the sealed-form script',
  '/dashboard/forms/:id/sealed/add': "a redirect to the settings page's Sealed form section",
  '/dashboard/forms/:id/sealed/remove': "a redirect to the settings page's Sealed form section",
  '/dashboard/forms/:id/sealed/unseal': "a redirect to the settings page's Sealed form section",
};

const routes = new Set<string>();
/** Routes whose pages a browser opens: the dashboard's, the hosted thank-you and unsubscribe pages. */
function collectPageRoutes(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const visitorPage = route.url === '/thanks' || route.url.startsWith('/v1/unsubscribe/');
  if (methods.includes('GET') && (route.url.startsWith('/dashboard') || route.url === '/favicon.ico' || visitorPage)) routes.add(route.url);
}

let seeded: SeededPages;
beforeAll(async () => {
  seeded = await startSeededPages({ onRoute: collectPageRoutes });
});
afterAll(async () => {
  await seeded?.close();
});

describe('every page, in light and dark, at 390 and 1440 px', () => {
  it('crawls every page route the app registers, or names why a route is not a page', () => {
    const { pages } = seeded;
    const unlisted = [...routes].filter((route) => !(route in pages) && !(route in NOT_PAGES)).sort();
    expect(unlisted, 'a new GET route: add its addresses to `pages` (or to NOT_PAGES)').toEqual([]);
    const gone = Object.keys(pages).filter((route) => !routes.has(route));
    expect(gone, 'routes listed here but no longer registered').toEqual([]);
    expect(Object.keys(pages).length).toBeGreaterThan(30);
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [390, 1440]) {
      it(`no serious axe finding and no sideways scroll, ${colorScheme} at ${width} px`, async () => {
        const { t, browser, pages, ownerCookies } = seeded;
        const context = await browser.newContext({ colorScheme, viewport: { width, height: 900 } });
        const page = await context.newPage();
        const failing: string[] = [];
        // An address that redirects to a page audited already is not audited twice.
        const audited = new Set<string>();
        const crawl = async (paths: string[] | undefined) => {
          for (const path of paths ?? []) {
            await page.goto(`${t.url}${path}`);
            const landed = page.url().split('#')[0]!;
            if (audited.has(landed)) continue;
            audited.add(landed);
            const where = `${path} (${colorScheme}, ${width} px)`;
            for (const violation of await seriousViolations(page)) failing.push(`${where}: ${violation}`);
            if (!(await fitsWidth(page))) failing.push(`${where}: scrolls sideways`);
          }
        };
        for (const entry of Object.values(pages)) await crawl(entry.signedOut);
        await context.addCookies(ownerCookies);
        for (const entry of Object.values(pages)) await crawl(entry.signedIn);
        // Pages a POST answers with: a refused field, a secret shown once, a confirmation.
        const answered = async (what: string, act: () => Promise<unknown>, shows: string) => {
          await Promise.all([page.waitForLoadState('load'), act()]);
          expect(await page.locator(shows).count(), what).toBeGreaterThan(0);
          for (const violation of await seriousViolations(page)) failing.push(`${what} (${colorScheme}, ${width} px): ${violation}`);
          if (!(await fitsWidth(page))) failing.push(`${what} (${colorScheme}, ${width} px): scrolls sideways`);
        };
        await page.goto(`${t.url}/dashboard/forms`);
        await answered('a form name refused', () => page.click('text=Create form'), '#name-error');
        await page.goto(`${t.url}/dashboard/keys`);
        await page.fill('input[name=name]', `Key ${colorScheme} ${width}`);
        await answered('a new key', () => page.click('text=Create key'), '#new-key');
        await page.goto(`${t.url}${pages['/dashboard/forms/:id/submissions']!.signedIn![0]}`);
        await page.locator('input[name=ids]').first().check();
        await answered('deleting ticked submissions', () => page.click('button[value=delete]'), '#confirm-question');
        expect(failing).toEqual([]);
        expect(audited.size).toBeGreaterThan(30);
        // The scheme really was applied: the dashboard's own background follows it.
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(background).toBe(colorScheme === 'dark' ? 'rgb(16, 19, 26)' : 'rgb(245, 246, 248)');
        await context.close();
      }, 240_000);
    }
  }
});

/** Nothing wider than the window: no sideways scrolling. */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
