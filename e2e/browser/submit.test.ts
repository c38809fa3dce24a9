import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { createOwner } from '../../test/helpers/factories.js';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('a plain HTML form in a real browser', () => {
  it('submits, lands on /thanks, and the submission is stored', async () => {
    // BASE_URL must be where the browser reaches this server: /thanks is built from it.
    t = await startTestApp({ baseUrlIsOwnAddress: true });
    const { form, account } = await createOwner(t.services);
    const page = await servePage(`<!doctype html><html><body>
      <form method="post" action="${t.url}/v1/submit/${form.id}">
        <input name="name" value="Ada Lovelace">
        <textarea name="message">Hello from a browser &lt;3</textarea>
        <input type="checkbox" name="topic" value="a" checked>
        <input type="checkbox" name="topic" value="b" checked>
        <input type="text" name="_honey" style="display:none">
        <button type="submit">Send</button>
      </form></body></html>`);
    try {
      const tab = await browser.newPage();
      await tab.goto(page.url);
      await Promise.all([tab.waitForURL(`${t.url}/thanks`), tab.click('button[type=submit]')]);
      expect(await tab.textContent('h1')).toContain('Thank you');
      // The only page of Formgate this visitor sees, with its way back: the Referer, which a
      // browser sends across sites as the origin alone.
      expect(await seriousViolations(tab)).toEqual([]);
      expect(await tab.getAttribute('main a', 'href')).toBe(`${new URL(page.url).origin}/`);
      const { submissions } = await t.services.submissionQueries.listSubmissions(account.id, form.id);
      expect(submissions).toHaveLength(1);
      expect(submissions[0]).toMatchObject({
        isSpam: false,
        payload: { name: 'Ada Lovelace', message: 'Hello from a browser <3', topic: ['a', 'b'] },
        referer: page.url,
      });
      expect(submissions[0]!.userAgent).toMatch(/Chrome/);
    } finally {
      await page.close();
    }
  });
});
