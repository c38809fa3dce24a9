import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { translations } from '../../client/src/messages.js';
import { altchaUrls } from '../../src/features/bot-checks/altcha-widget.js';
import { formSnippet } from '../../src/frontends/dashboard/views/snippets.js';
import type { Form } from '../../src/features/forms/form.types.js';
import { catalogues } from '../../src/platform/i18n/i18n.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { createForm, createOwner } from '../../test/helpers/factories.js';
import { countStored } from '../../test/helpers/submit.js';

// What a visitor sees on a customer's page (another origin than Formgate's) holding the snippet
// the dashboard gives for the form: the bot check, the form's language, the errors, the focus.
let t: TestApp;
let browser: Browser;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  browser = await launchChromium();
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { SUBMIT_RATE_LIMIT_PER_MINUTE: '0' } });
});
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The dashboard's snippet for the form, with or without Formgate's script. */
function snippet(form: Form, withScript: boolean): string {
  const { versionedPath, integrity } = t.app.clientScript;
  return formSnippet(form, `${t.url}/v1/submit/${form.id}`, altchaUrls(t.url, form.id), withScript ? { url: `${t.url}${versionedPath}`, integrity } : undefined);
}

/** A customer's page holding `body`, opened in a browser whose preferred language is `locale`. */
async function openPage(body: string, locale = 'en-US'): Promise<{ tab: Page; context: BrowserContext; url: string; requests: Array<{ url: string; at: number }> }> {
  const page = await servePage(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact</title></head>
    <body><main><h1>Contact us</h1>${body}</main></body></html>`);
  opened.push(page);
  const context = await browser.newContext({ locale });
  opened.push(context);
  const tab = await context.newPage();
  const requests: Array<{ url: string; at: number }> = [];
  tab.on('request', (r) => requests.push({ url: r.url(), at: Date.now() }));
  await tab.goto(page.url);
  return { tab, context, url: page.url, requests };
}

const altchaState = (tab: Page) => tab.evaluate(() => (document.querySelector('altcha-widget') as unknown as { getState?: () => string }).getState?.());
const activeElement = (tab: Page) =>
  tab.evaluate(() => {
    const el = document.activeElement!;
    return { tag: el.tagName.toLowerCase(), name: el.getAttribute('name'), status: el.hasAttribute('data-formgate-status'), text: el.textContent };
  });

describe('ALTCHA with a minimum fill time, from the dashboard snippet', () => {
  it('fetches and solves the challenge as the page loads: a visitor who takes longer than the fill time is not spam', async () => {
    const { account } = await createOwner(t.services);
    const form = await createForm(t.services, account.id, { botCheck: 'altcha', altchaComplexity: 'low', minFillSeconds: 2, requiredFields: ['email'] });
    const { tab, requests } = await openPage(snippet(form, false));
    const loadedAt = Date.now();
    // Nobody touched the page, and the challenge is already fetched and solved: no box to tick.
    await tab.waitForFunction(() => (document.querySelector('input[name=altcha]') as HTMLInputElement | null)?.value, undefined, { timeout: 60_000 });
    expect(requests.filter((r) => r.url.includes(`/v1/challenge/${form.id}`))).toHaveLength(1);
    expect(await altchaState(tab)).toBe('verified');
    expect(await seriousViolations(tab)).toEqual([]);
    await tab.fill('input[name=email]', 'ada@example.org');
    await tab.fill('textarea[name=message]', 'Typed at a human pace');
    // The visitor is slower than the form's minimum fill time, counted from the page's load.
    await expect.poll(() => Date.now() - loadedAt, { timeout: 10_000, interval: 200 }).toBeGreaterThan(2_200);
    await Promise.all([tab.waitForURL(`${t.url}/thanks`), tab.click('button[type=submit]')]);
    const { submissions } = await t.services.submissionQueries.listSubmissions(account.id, form.id);
    expect(submissions).toHaveLength(1);
    expect(submissions[0]).toMatchObject({ isSpam: false, spamReason: null, payload: { email: 'ada@example.org' } });
  });

  it("speaks the form's language: the widget's texts come with its challenge", async () => {
    const { account } = await createOwner(t.services);
    const form = await createForm(t.services, account.id, { botCheck: 'altcha', altchaComplexity: 'low', language: 'de' });
    const { tab } = await openPage(snippet(form, true), 'en-US');
    await tab.waitForFunction(() => (document.querySelector('input[name=altcha]') as HTMLInputElement | null)?.value, undefined, { timeout: 60_000 });
    // Solved already: the box reads "verified", in German, and so does the footer.
    expect(await tab.locator('altcha-widget').textContent()).toContain(catalogues.de['altcha.verified']);
    expect(await tab.locator('altcha-widget').textContent()).toContain(catalogues.de['altcha.footer']);
    expect(await tab.locator('altcha-widget').textContent()).not.toContain('Verified');
    expect(await seriousViolations(tab)).toEqual([]);
  });
});

describe("the snippet follows the form's settings", () => {
  it('the browser asks for a required field before sending; the script speaks German and focuses the message', async () => {
    const { account } = await createOwner(t.services);
    const form = await createForm(t.services, account.id, { language: 'de', requiredFields: ['email', 'name'] });
    const { tab } = await openPage(snippet(form, true), 'en-US');
    await tab.waitForFunction(() => 'Formgate' in window);
    expect(await tab.getAttribute('form', 'lang')).toBe('de');
    expect(await tab.getAttribute('form', 'enctype')).toBeNull();
    await tab.click('button[type=submit]');
    // Not sent: the browser stopped at the first required field, which has the focus.
    expect(await tab.evaluate(() => (document.querySelector('input[name=email]') as HTMLInputElement).validity.valueMissing)).toBe(true);
    expect((await activeElement(tab)).name).toBe('email');
    expect(await countStored(t, form.id)).toBe(0);
    await tab.fill('input[name=email]', 'ada@example.org');
    await tab.fill('input[name=name]', 'Ada');
    await tab.click('button[type=submit]');
    const region = tab.getByRole('status').filter({ hasText: translations.de!.success });
    await region.waitFor();
    // The form is hidden: the focus is on the message, which is read out, not on <body>.
    const focused = await activeElement(tab);
    expect(focused).toMatchObject({ status: true, text: translations.de!.success });
    expect(await region.getAttribute('tabindex')).toBe('-1');
    expect(await countStored(t, form.id)).toBe(1);
    expect(await seriousViolations(tab)).toEqual([]);
  });
});

describe('errors the visitor can act on', () => {
  it("the script: German field errors from the server, the focus on the first field to correct, else on the message", async () => {
    const { account } = await createOwner(t.services);
    const form = await createForm(t.services, account.id, { language: 'de', requiredFields: ['name'] });
    const keyed = await createForm(t.services, account.id, { accessKey: 'right', language: 'de' });
    const { versionedPath, integrity } = t.app.clientScript;
    // An older page: the required field is not marked, so the server is the one to refuse it.
    const { tab } = await openPage(`
      <form data-formgate lang="de" method="post" action="${t.url}/v1/submit/${form.id}">
        <label>Name <input name="name"></label><label>Nachricht <textarea name="message">Hallo</textarea></label>
        <button type="submit">Senden</button></form>
      <form data-formgate id="keyed" method="post" action="${t.url}/v1/submit/${keyed.id}">
        <label>Nachricht <textarea name="message">Hallo</textarea></label><button type="submit">Senden</button></form>
      <script src="${t.url}${versionedPath}" integrity="${integrity}" crossorigin="anonymous" defer></script>`, 'de-DE');
    await tab.waitForFunction(() => 'Formgate' in window);
    await tab.click('form:not(#keyed) button');
    await tab.getByRole('status').filter({ hasText: catalogues.de['submit.required_missing'] }).waitFor();
    const field = tab.getByRole('textbox', { name: 'Name' });
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await tab.locator(`[id="${await field.getAttribute('aria-describedby')}"]`).textContent()).toBe(catalogues.de['field.required']);
    expect((await activeElement(tab)).name).toBe('name');
    expect(await seriousViolations(tab)).toEqual([]);
    // No field to point at (a wrong access key): the focus goes to the message saying why.
    await tab.click('#keyed button');
    await tab.getByRole('status').filter({ hasText: catalogues.de['error.access_denied'] }).waitFor();
    expect(await activeElement(tab)).toMatchObject({ status: true, text: catalogues.de['error.access_denied'] });
  });

  it('without the script: the hosted page names each field and why; "Back to the site" returns with the typed text', async () => {
    const { account } = await createOwner(t.services);
    const form = await createForm(t.services, account.id, { language: 'fr', requiredFields: ['name', 'phone'] });
    const { tab, url } = await openPage(`
      <form method="post" action="${t.url}/v1/submit/${form.id}">
        <label>Nom <input name="name"></label><label>Message <textarea name="message"></textarea></label>
        <button type="submit">Envoyer</button></form>`, 'en-US');
    await tab.fill('textarea[name=message]', 'Un long message tapé avec soin');
    await Promise.all([tab.waitForURL(`${t.url}/v1/submit/${form.id}`), tab.click('button')]);
    expect(await tab.getAttribute('html', 'lang')).toBe('fr');
    expect(await tab.locator('main li').allTextContents()).toEqual([`name: ${catalogues.fr['field.required']}`, `phone: ${catalogues.fr['field.required']}`]);
    const back = tab.getByRole('link', { name: catalogues.fr['thanks.back'] });
    expect(await back.getAttribute('href')).toBe(url);
    expect(await seriousViolations(tab)).toEqual([]);
    await Promise.all([tab.waitForURL(url), back.click()]);
    expect(await tab.inputValue('textarea[name=message]')).toBe('Un long message tapé avec soin');
  });
});
