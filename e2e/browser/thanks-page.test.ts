import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogues, languages } from '../../src/platform/i18n/i18n.js';
import { unsubscribeToken } from '../../src/features/notifications/confirmation.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { createOwner } from '../../test/helpers/factories.js';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  // BASE_URL must be where the browser reaches this server: /thanks is built from it.
  t = await startTestApp({ baseUrlIsOwnAddress: true });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const XSS_TITLE = `<script>window.__pwned = 1</script>Merci "<b>x</b>"`;
const XSS_MESSAGE = `First line <img src=x onerror="window.__pwned = 2">\nSecond line </p><a href="javascript:window.__pwned=3">click</a>`;

describe('the per-form thank-you page in a real browser', () => {
  for (const language of languages) {
    it(`shows the form's title and message as text, in ${language}, with a link back to the site`, async () => {
      const { form } = await createOwner(t.services, { form: { language, thanksTitle: XSS_TITLE, thanksMessage: XSS_MESSAGE } });
      const site = await servePage(`<!doctype html><html><body>
        <form method="post" action="${t.url}/v1/submit/${form.id}"><input name="name" value="Ada"><button type="submit">Send</button></form>
        </body></html>`);
      const context = await browser.newContext({ locale: language === 'en' ? 'de-DE' : 'en-US' });
      try {
        const tab = await context.newPage();
        await tab.goto(site.url);
        await Promise.all([tab.waitForURL(`${t.url}/thanks?form=${form.id}`), tab.click('button[type=submit]')]);
        expect(await tab.getAttribute('html', 'lang')).toBe(language);
        expect(await tab.textContent('h1')).toBe(XSS_TITLE);
        expect(await tab.title()).toBe(XSS_TITLE);
        expect(await tab.innerText('main p:first-of-type')).toBe(XSS_MESSAGE);
        expect(await tab.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
        expect(await tab.locator('main script, main img, main b').count()).toBe(0);
        const back = tab.locator('main a');
        expect(await back.count()).toBe(1);
        expect(await back.textContent()).toBe(catalogues[language]['thanks.back']);
        // The Referer as the browser sent it: across origins, by default, the page's origin.
        expect(await back.getAttribute('href')).toBe(site.url);
        expect(await seriousViolations(tab)).toEqual([]);
      } finally {
        await context.close();
        await site.close();
      }
    });
  }

  it('a form without its own content still lands on the plain /thanks, in the Accept-Language', async () => {
    const { form } = await createOwner(t.services);
    const site = await servePage(`<!doctype html><html><body>
      <form method="post" action="${t.url}/v1/submit/${form.id}"><input name="name" value="Ada"><button type="submit">Send</button></form></body></html>`);
    const context = await browser.newContext({ locale: 'es-ES' });
    try {
      const tab = await context.newPage();
      await tab.goto(site.url);
      await Promise.all([tab.waitForURL(`${t.url}/thanks`), tab.click('button[type=submit]')]);
      expect(await tab.textContent('h1')).toBe(catalogues.es['thanks.heading']);
      // Back to the site here too.
      expect(await tab.getAttribute('main a', 'href')).toBe(site.url);
      expect(await tab.textContent('main a')).toBe(catalogues.es['thanks.back']);
      expect(await seriousViolations(tab)).toEqual([]);
    } finally {
      await context.close();
      await site.close();
    }
  });

  it('the error pages link back to the site too: the one the submit answers and /thanks?error=', async () => {
    const { form } = await createOwner(t.services, { form: { accessKey: 'right' } });
    const site = await servePage(`<!doctype html><html><body>
      <form method="post" action="${t.url}/v1/submit/${form.id}"><input name="name" value="Ada"><button type="submit">Send</button></form>
      <a id="explained" href="${t.url}/thanks?error=rate_limited&back=https://evil.example">why</a></body></html>`);
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.goto(site.url);
      // No access key: the submit answers the hosted error page itself (no error URL is set).
      await Promise.all([tab.waitForURL(`${t.url}/v1/submit/${form.id}`), tab.click('button[type=submit]')]);
      expect(await tab.textContent('h1')).toBe(catalogues.en['error.heading']);
      expect(await tab.getAttribute('main a', 'href')).toBe(site.url);
      expect(await seriousViolations(tab)).toEqual([]);
      await Promise.all([tab.waitForURL(site.url), tab.click('main a')]);

      await Promise.all([tab.waitForURL(/\/thanks\?error=rate_limited/), tab.click('#explained')]);
      expect(await tab.textContent('main p')).toBe(catalogues.en['error.rate_limited']);
      // The query's "back" is ignored: the link is the Referer.
      expect(await tab.locator('main a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([site.url]);
      expect(await seriousViolations(tab)).toEqual([]);
    } finally {
      await context.close();
      await site.close();
    }
  });

  it('the unsubscribe pages, hosted like /thanks, pass axe-core too', async () => {
    const token = unsubscribeToken(await t.services.instanceSecrets.getSecret('unsubscribe'), 'reader@example.com');
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.goto(`${t.url}/v1/unsubscribe/${token}`);
      expect(await tab.textContent('button')).toBe(catalogues.en['unsubscribe.button']);
      expect(await seriousViolations(tab)).toEqual([]);
      await Promise.all([tab.waitForLoadState('load'), tab.click('button')]);
      expect(await tab.textContent('h1')).toBe(catalogues.en['unsubscribe.done.heading']);
      expect(await seriousViolations(tab)).toEqual([]);
      expect((await tab.goto(`${t.url}/v1/unsubscribe/not-a-token`))!.status()).toBe(404);
      expect(await tab.textContent('h1')).toBe(catalogues.en['unsubscribe.invalid.heading']);
      expect(await seriousViolations(tab)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
