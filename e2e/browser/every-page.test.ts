import type { RouteOptions } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsubscribeToken } from '../../src/features/notifications/confirmation.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { createAccount, createOwner } from '../../test/helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

// Every page a person can open, in light and dark, on a phone and a wide screen: no serious or
// critical axe-core finding and no sideways scrolling. The list comes from the routes the app
// registers, so a new page is crawled (or must be named below as not a page) from its first day.
const PASSWORD = 'long enough password';
const OWNER = 'owner@example.com';
const OTHER = 'other@example.com';
const INVITEE = 'invitee@example.com';

/** GET routes that answer no HTML page of their own, and why. */
const NOT_PAGES: Record<string, string> = {
  '/dashboard/assets/app.css': 'the stylesheet',
  '/dashboard/assets/app.js': 'the page script',
  '/favicon.ico': 'the icon',
  '/dashboard/forms/:id/export.csv': 'a download',
  '/dashboard/forms/:id/export.ndjson': 'a download',
  '/dashboard/audit.ndjson': 'a download',
  '/dashboard/files/:id': 'an uploaded file',
};

const routes = new Set<string>();
/** Routes whose pages a browser opens: the dashboard's, the hosted thank-you and unsubscribe pages. */
function collectPageRoutes(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const visitorPage = route.url === '/thanks' || route.url.startsWith('/v1/unsubscribe/');
  if (methods.includes('GET') && (route.url.startsWith('/dashboard') || route.url === '/favicon.ico' || visitorPage)) routes.add(route.url);
}

let t: TestApp;
let smtp: SmtpSink;
let browser: Browser;
/** Each page route with the addresses that show it (signed out, or signed in as the owner). */
let pages: Record<string, { signedOut?: string[]; signedIn?: string[] }>;
let ownerCookies: Awaited<ReturnType<BrowserContext['cookies']>>;

const linkIn = (to: string, pattern: RegExp) => pattern.exec(smtp.to(to).map((m) => m.parsed.text ?? '').join('\n'))![1]!;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({
    baseUrlIsOwnAddress: true,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'formgate@example.com', HOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    onRoute: collectPageRoutes,
  });
  browser = await launchChromium();
  const s = t.services;
  // The first user is the instance admin: the Admin page and its confirmation are crawled too.
  const owner = await createAccount(s, { email: OWNER, password: PASSWORD, planId: 'pro', displayName: 'Owner' });
  const other = await createAccount(s, { email: OTHER, password: PASSWORD, planId: 'free', displayName: 'Other' });
  const form = await s.forms.createForm(owner.id, { name: 'Contact with a rather long name that has to wrap somewhere on a phone' });
  const long = 'I would like a quote for a website with a contact form, a newsletter sign-up and a shop; please call me back next week';
  // The hook before the submissions: the submission page and the Hooks page show failed deliveries.
  const { hook } = await s.hooks.createHook(owner.id, { formId: form.id, targetUrl: 'https://127.0.0.1:9/in' });
  const sent = async (fields: Record<string, string>) => ((await (await submit(t, form.id, { json: fields }, JSON_ACCEPT)).json()) as { submissionId: string }).submissionId;
  const submissionId = await sent({ email: 'ada@example.org', message: `${long} https://example.org/a/long/path/that/has/no/space/at/all/0123456789` });
  const second = await sent({ email: 'grace@example.org', message: 'A second one, so the list has rows to tick' });
  for (const tag of ['urgent', 'follow-up']) await s.inbox.apply(owner.id, [second], { kind: 'tag', tag });
  await s.inbox.apply(owner.id, [second], { kind: 'done' });
  await s.inbox.setNotes(owner.id, submissionId, 'Called back on Monday.');
  const spamId = await sent({ message: 'casino', _honey: 'bot' });
  const integration = await s.integrations.addIntegration(form.id, { kind: 'slack', url: 'https://hooks.slack.com/services/T0/B0/x' });
  await t.handle.db.updateTable('integrations').set({ enabled: 0, disabled_reason: 'Slack answered 404: the webhook was deleted' }).where('id', '=', integration.id).execute();
  const { key } = await s.apiKeys.createApiKey(owner.id, 'Zapier');
  await s.notifications.setRecipients(form.id, ['team@example.net'], { verified: false, accountId: owner.id });
  await s.emailChanges.requestChange(owner.id, 'new.owner@example.net', { password: PASSWORD, signedOnAt: null });
  await s.passwordResets.requestReset(OTHER);
  const invitation = await s.members.invite(owner.id, { email: INVITEE, role: 'member' });
  // A waiting invitation for the owner, from the other account: the Invitations page lists it.
  await s.members.invite(other.id, { email: OWNER, role: 'viewer' });
  await waitFor(() => ['team@example.net', 'new.owner@example.net', OTHER].every((to) => smtp.to(to).length > 0), 15_000, 'the emailed links');
  const token = (path: string, to: string) => `/dashboard/${path}/${linkIn(to, new RegExp(`/dashboard/${path}/([A-Za-z0-9_-]+)`))}`;
  const unsubscribe = unsubscribeToken(await s.instanceSecrets.getSecret('unsubscribe'), 'reader@example.com');

  const f = `/dashboard/forms/${form.id}`;
  pages = {
    '/dashboard': { signedOut: ['/dashboard'], signedIn: ['/dashboard'] },
    '/dashboard/login': { signedOut: ['/dashboard/login'] },
    '/dashboard/signup': { signedOut: ['/dashboard/signup'] },
    '/dashboard/forgot-password': { signedOut: ['/dashboard/forgot-password'] },
    '/dashboard/reset-password/:token': { signedOut: [token('reset-password', OTHER), '/dashboard/reset-password/used-or-expired-link-token'] },
    '/dashboard/verify-email/:token': { signedOut: [token('verify-email', 'team@example.net'), '/dashboard/verify-email/used-or-expired-link-token'] },
    '/dashboard/confirm-email/:token': { signedOut: [token('confirm-email', 'new.owner@example.net')] },
    '/dashboard/invite/:token': { signedOut: [new URL(invitation.url).pathname] },
    '/dashboard/auth/oidc': { signedOut: ['/dashboard/auth/oidc'] },
    '/dashboard/auth/oidc/callback': { signedOut: ['/dashboard/auth/oidc/callback?state=stale&code=nothing'] },
    '/thanks': { signedOut: [`/thanks?form=${form.id}&submission=${submissionId}`, '/thanks?error=validation_failed'] },
    '/v1/unsubscribe/:token': { signedOut: [`/v1/unsubscribe/${unsubscribe}`, '/v1/unsubscribe/not-a-token'] },
    '/dashboard/forms': { signedIn: ['/dashboard/forms'] },
    '/dashboard/forms/:id/submissions': { signedIn: [`${f}/submissions`, `${f}/submissions?spam=1`, `${f}/submissions?q=zzz`] },
    '/dashboard/forms/:id/settings': { signedIn: [`${f}/settings`] },
    '/dashboard/forms/:id/delete': { signedIn: [`${f}/delete`] },
    '/dashboard/forms/:id/email-log': { signedIn: [`${f}/email-log`] },
    '/dashboard/forms/:id/integrations': { signedIn: [`${f}/integrations`] },
    '/dashboard/forms/:id/notifications': { signedIn: [`${f}/notifications`] },
    '/dashboard/forms/:id/submitter': { signedIn: [`${f}/submitter`] },
    '/dashboard/forms/:id/submissions/bulk': { signedIn: [`${f}/submissions/bulk`] },
    '/dashboard/submissions/:id': { signedIn: [`/dashboard/submissions/${submissionId}`, `/dashboard/submissions/${second}`, `/dashboard/submissions/${spamId}`] },
    '/dashboard/keys': { signedIn: ['/dashboard/keys'] },
    '/dashboard/keys/:id/revoke': { signedIn: [`/dashboard/keys/${key.id}/revoke`] },
    '/dashboard/hooks': { signedIn: ['/dashboard/hooks'] },
    '/dashboard/hooks/:id/delete': { signedIn: [`/dashboard/hooks/${hook.id}/delete`] },
    '/dashboard/account': { signedIn: ['/dashboard/account'] },
    '/dashboard/audit': { signedIn: ['/dashboard/audit'] },
    '/dashboard/members': { signedIn: ['/dashboard/members'] },
    '/dashboard/invitations': { signedIn: ['/dashboard/invitations'] },
    '/dashboard/admin': { signedIn: ['/dashboard/admin'] },
    '/dashboard/admin/accounts/:id/delete': { signedIn: [`/dashboard/admin/accounts/${other.id}/delete`] },
    '/dashboard/*': { signedIn: ['/dashboard/no-such-page'] },
  };

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name=email]', OWNER);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/(forms|invitations)$/), page.click('button.primary')]);
  ownerCookies = await context.cookies();
  await context.close();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

describe('every page, in light and dark, at 390 and 1440 px', () => {
  it('crawls every page route the app registers, or names why a route is not a page', () => {
    const unlisted = [...routes].filter((route) => !(route in pages) && !(route in NOT_PAGES)).sort();
    expect(unlisted, 'a new GET route: add its addresses to `pages` (or to NOT_PAGES)').toEqual([]);
    const gone = Object.keys(pages).filter((route) => !routes.has(route));
    expect(gone, 'routes listed here but no longer registered').toEqual([]);
    expect(Object.keys(pages).length).toBeGreaterThan(30);
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [390, 1440]) {
      it(`no serious axe finding and no sideways scroll, ${colorScheme} at ${width} px`, async () => {
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

/** A signed-in page of the owner's at this width (light unless asked). */
async function ownerTab(width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const context = await browser.newContext({ colorScheme, viewport: { width, height: 900 } });
  await context.addCookies(ownerCookies);
  return context.newPage();
}
const boxOf = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

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
    const buttons = [
      { path: '/dashboard/forms', button: 'form[action="/dashboard/forms"] button' },
      { path: '/dashboard/keys', button: 'form[action="/dashboard/keys"] button' },
      { path: '/dashboard/members', button: 'form[action="/dashboard/members/invitations"] button' },
      { path: pages['/dashboard/forms/:id/submissions']!.signedIn![0]!, button: '#bulk button[value=tag]' },
      { path: submission, button: 'button[value=tag]' },
      { path: submission, button: 'button[value=assign]' },
    ];
    for (const width of [1440, 390]) {
      const page = await ownerTab(width);
      for (const { path, button } of buttons) {
        await page.goto(`${t.url}${path}`);
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
        expect(Math.abs(pressed.top - field!.top), `${where}: tops`).toBeLessThanOrEqual(2);
        expect(Math.abs(pressed.bottom - field!.bottom), `${where}: bottoms`).toBeLessThanOrEqual(2);
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
