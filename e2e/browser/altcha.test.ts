import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { createForm, createOwner } from '../../test/helpers/factories.js';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  t = await startTestApp({ baseUrlIsOwnAddress: true });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('ALTCHA in a real browser', () => {
  it("the widget, loaded from Formgate's own asset URL, solves Formgate's challenge; the form submits and is not spam", async () => {
    const { account } = await createOwner(t.services);
    const form = await createForm(t.services, account.id, { botCheck: 'altcha', altchaComplexity: 'low' });
    // A customer's page on another origin: everything ALTCHA needs comes from Formgate, nothing from a third host.
    const page = await servePage(`<!doctype html><html><head>
      <script type="module" src="${t.url}/v1/assets/altcha.js?v=test"></script></head><body>
      <form method="post" action="${t.url}/v1/submit/${form.id}">
        <input name="name" value="Ada Lovelace">
        <textarea name="message">Proof of work, no third party</textarea>
        <altcha-widget challengeurl="${t.url}/v1/challenge/${form.id}" auto="onload"></altcha-widget>
        <button type="submit">Send</button>
      </form></body></html>`);
    const hosts = new Set<string>();
    try {
      const tab = await browser.newPage();
      tab.on('request', (request) => hosts.add(new URL(request.url()).host));
      await tab.goto(page.url);
      // The widget puts its solution in a hidden `altcha` field once the work is done.
      await tab.waitForFunction(() => (document.querySelector('input[name=altcha]') as HTMLInputElement | null)?.value, undefined, { timeout: 60_000 });
      await Promise.all([tab.waitForURL(`${t.url}/thanks`), tab.click('button[type=submit]')]);
      expect(await seriousViolations(tab)).toEqual([]); 
      const { submissions } = await t.services.submissionQueries.listSubmissions(account.id, form.id);
      expect(submissions).toHaveLength(1);
      expect(submissions[0]).toMatchObject({ isSpam: false, spamReason: null, payload: { name: 'Ada Lovelace', message: 'Proof of work, no third party' } });
      expect([...hosts].filter((h) => h !== '' && h !== new URL(page.url).host && h !== new URL(t.url).host)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
