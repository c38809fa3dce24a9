import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../client/src/messages.js';
import type { Form } from '../../src/features/forms/form.types.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { createOwner } from '../../test/helpers/factories.js';
import { countStored } from '../../test/helpers/submit.js';

// The script on a customer's page: another origin than Formgate's, loaded from the versioned URL
// with Subresource Integrity, as the dashboard's snippet writes it (a wrong hash would block it).
let t: TestApp;
let browser: Browser;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  browser = await launchChromium();
  // Two posts a minute per form: the network-cut case makes two, the 429 case a third.
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { SUBMIT_RATE_LIMIT_PER_MINUTE: '2', SUBMIT_MAX_BODY_BYTES: '20000' } });
});
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const submitUrl = (form: Form) => `${t.url}/v1/submit/${form.id}`;

function formHtml(form: Form, attributes = '', fields = '<label>Name <input name="name" value="Ada"></label>'): string {
  return `<form data-formgate ${attributes} method="post" action="${submitUrl(form)}">
    ${fields}
    <input type="text" name="_honey" style="display:none" tabindex="-1" autocomplete="off">
    <button type="submit">Send</button>
  </form>`;
}

/** A static page on its own origin with the form and Formgate's script; JavaScript on or off. */
async function openPage(body: string, options: { javaScriptEnabled?: boolean } = {}): Promise<{ tab: Page; context: BrowserContext; url: string }> {
  const { versionedPath, integrity } = t.app.clientScript;
  const page = await servePage(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact</title>
    <script src="${t.url}${versionedPath}" integrity="${integrity}" crossorigin="anonymous" defer></script>
    </head><body><main><h1>Contact us</h1>${body}</main></body></html>`);
  opened.push(page);
  const context = await browser.newContext({ javaScriptEnabled: options.javaScriptEnabled ?? true });
  opened.push(context);
  const tab = await context.newPage();
  await tab.goto(page.url);
  if (options.javaScriptEnabled !== false) await tab.waitForFunction(() => 'Formgate' in window);
  return { tab, context, url: page.url };
}

/** The live region the script announces in (role=status, polite), once it says `text`. */
async function announced(tab: Page, text: string | RegExp): Promise<string> {
  const region = tab.getByRole('status').filter({ hasText: text });
  await region.waitFor();
  expect(await region.getAttribute('aria-live')).toBe('polite');
  return (await region.textContent())!;
}

describe('the script on a plain HTML form (another origin)', () => {
  it('submits in place with JSON and an Idempotency-Key, shows the success text, stores one submission', async () => {
    const { form, account } = await createOwner(t.services);
    const { tab, url } = await openPage(formHtml(form, 'data-formgate-success="Thanks, Ada!"', '<label>Name <input name="name" value="Ada"></label><label>Message <textarea name="message">Hi &lt;3</textarea></label>'));
    const posted = tab.waitForRequest((r) => r.method() === 'POST');
    await tab.click('button');
    await announced(tab, 'Thanks, Ada!');
    const request = await posted;
    expect(request.headers()['accept']).toBe('application/json');
    expect(request.headers()['idempotency-key']).toMatch(/^fg_[0-9a-f]{32}$/);
    expect(request.headers()['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(tab.url()).toBe(url);
    expect(await tab.locator('form').isHidden()).toBe(true);
    const { submissions } = await t.services.submissionQueries.listSubmissions(account.id, form.id);
    expect(submissions).toHaveLength(1);
    expect(submissions[0]).toMatchObject({ isSpam: false, payload: { name: 'Ada', message: 'Hi <3' } });
  });

  it('places field errors next to their field (aria-invalid, aria-describedby), announces the message, clears them on the next try', async () => {
    const { form } = await createOwner(t.services);
    // A field name over 256 characters is refused with fieldErrors naming it (cut to 64 + "…").
    const longName = `comment_${'x'.repeat(300)}`;
    const { tab } = await openPage(formHtml(form, '', `<label>Name <input name="name" value="Ada"></label><label>Comment <input name="${longName}" value="v"></label>`));
    await tab.click('button');
    expect(await announced(tab, 'A field is not valid.')).toBe('A field is not valid.');
    const field = tab.getByRole('textbox', { name: 'Comment' });
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const noteId = (await field.getAttribute('aria-describedby'))!;
    const note = tab.locator(`[id="${noteId}"]`);
    expect(await note.textContent()).toBe('field names may have at most 256 characters');
    // Right after the field's label, and the focus moved to the field.
    expect(await note.evaluate((el) => el.previousElementSibling?.textContent?.trim())).toBe('Comment');
    expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await tab.getByRole('textbox', { name: 'Name' }).getAttribute('aria-invalid')).toBeNull();
    expect(await countStored(t, form.id)).toBe(0);

    // The visitor's next try without the offending field: errors gone, stored once.
    await field.evaluate((el) => el.closest('label')!.remove());
    await tab.click('button');
    await announced(tab, messages.success);
    expect(await note.count()).toBe(0);
    expect(await countStored(t, form.id)).toBe(1);
  });

  it('a double click stores one submission: the button is disabled while sending, a second submit is ignored', async () => {
    const { form } = await createOwner(t.services);
    const { tab } = await openPage(formHtml(form));
    let posts = 0;
    let disabledWhileSending: boolean | undefined;
    await tab.route(submitUrl(form), async (route) => {
      if (route.request().method() === 'POST') {
        posts++;
        disabledWhileSending = await tab.locator('button').isDisabled();
      }
      await route.continue();
    });
    await tab.dblclick('button');
    await announced(tab, messages.success);
    expect(disabledWhileSending).toBe(true);
    expect(posts).toBe(1);
    expect(await countStored(t, form.id)).toBe(1);
    expect(await tab.locator('button').isDisabled()).toBe(false);
  });

  it('two submits in one tick (a script, a fast Enter) send one request', async () => {
    const { form } = await createOwner(t.services);
    const { tab } = await openPage(formHtml(form));
    const posts: string[] = [];
    tab.on('request', (r) => r.method() === 'POST' && posts.push(r.url()));
    await tab.evaluate(() => {
      const f = document.querySelector('form')!;
      f.requestSubmit();
      f.requestSubmit();
    });
    await announced(tab, messages.success);
    expect(posts).toHaveLength(1);
    expect(await countStored(t, form.id)).toBe(1);
  });

  it('the connection cut after the server stored it: the retry reuses the key and stores nothing twice', async () => {
    const { form } = await createOwner(t.services);
    const { tab } = await openPage(formHtml(form));
    const keys: string[] = [];
    let cut = true;
    await tab.route(submitUrl(form), async (route) => {
      const request = route.request();
      if (request.method() !== 'POST') return route.continue();
      keys.push(request.headers()['idempotency-key']!);
      if (!cut) return route.continue();
      cut = false;
      // The request reaches Formgate for real; its answer never reaches the page.
      await route.fetch();
      return route.abort('connectionreset');
    });
    await tab.click('button');
    await announced(tab, messages.network);
    expect(await countStored(t, form.id)).toBe(1);
    expect(await tab.locator('button').isDisabled()).toBe(false);

    const answer = tab.waitForResponse((r) => r.request().method() === 'POST');
    await tab.click('button');
    await announced(tab, messages.success);
    expect(await (await answer).json()).toMatchObject({ ok: true, cached: true });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(await countStored(t, form.id)).toBe(1);
  });

  it('offline: says so without sending; back online the same form goes through', async () => {
    const { form } = await createOwner(t.services);
    const { tab, context } = await openPage(formHtml(form));
    const posts: string[] = [];
    tab.on('request', (r) => r.method() === 'POST' && posts.push(r.url()));
    await context.setOffline(true);
    await tab.click('button');
    await announced(tab, messages.offline);
    expect(posts).toHaveLength(0);
    await context.setOffline(false);
    await tab.click('button');
    await announced(tab, messages.success);
    expect(await countStored(t, form.id)).toBe(1);
  });

  it('429: tells how many seconds to wait (Retry-After read across origins)', async () => {
    const { form } = await createOwner(t.services);
    const { tab } = await openPage(formHtml(form));
    for (let i = 0; i < 2; i++) {
      await tab.click('button');
      await announced(tab, messages.success);
      await tab.reload();
      await tab.waitForFunction(() => 'Formgate' in window);
    }
    const answer = tab.waitForResponse((r) => r.request().method() === 'POST');
    await tab.click('button');
    expect((await answer).status()).toBe(429);
    const text = await announced(tab, /Please wait \d+ seconds/);
    const seconds = Number(/wait (\d+) seconds/.exec(text)![1]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(await countStored(t, form.id)).toBe(2);
  });

  it('413: says the form is too large', async () => {
    const { form } = await createOwner(t.services);
    const { tab } = await openPage(formHtml(form, '', '<label>Message <textarea name="message"></textarea></label>'));
    await tab.getByRole('textbox', { name: 'Message' }).fill('x'.repeat(25_000));
    await tab.click('button');
    await announced(tab, messages.tooLarge);
    expect(await countStored(t, form.id)).toBe(0);
  });

  it("loads the form's Turnstile widget script when the page did not, and resets the widget after each try", async () => {
    const { form } = await createOwner(t.services);
    // A local stand-in for Cloudflare's api.js: a widget that puts a token in the form.
    let loaded = 0;
    const context = await browser.newContext();
    opened.push(context);
    await context.route('https://challenges.cloudflare.com/**', (route) => {
      loaded++;
      return route.fulfill({
        contentType: 'text/javascript',
        body: `window.turnstile = { resets: 0, reset: function (w) { if (w.className !== 'cf-turnstile') return; this.resets++; w.querySelector('input').value = 'token-' + this.resets; } };
          document.querySelectorAll('.cf-turnstile').forEach(function (w) { var i = document.createElement('input'); i.type = 'hidden'; i.name = 'cf-turnstile-response'; i.value = 'token-0'; w.appendChild(i); });`,
      });
    });
    const { versionedPath, integrity } = t.app.clientScript;
    const page = await servePage(`<!doctype html><html><head><script src="${t.url}${versionedPath}" integrity="${integrity}" crossorigin="anonymous"></script></head>
      <body>${formHtml(form, '', '<label>Name <input name="name" value="Ada"></label><div class="cf-turnstile" data-sitekey="1x00000000000000000000AA"></div>')}</body></html>`);
    opened.push(page);
    const tab = await context.newPage();
    await tab.goto(page.url);
    await tab.waitForFunction(() => 'turnstile' in window);
    expect(loaded).toBe(1);
    const posted = tab.waitForRequest((r) => r.method() === 'POST');
    await tab.click('button');
    await announced(tab, messages.success);
    expect((await posted).postData()).toContain('cf-turnstile-response=token-0');
    expect(await tab.evaluate(() => (window as unknown as { turnstile: { resets: number } }).turnstile.resets)).toBe(1);
    expect(await tab.locator('input[name=cf-turnstile-response]').inputValue()).toBe('token-1');
  });

  it('resets hCaptcha and reCAPTCHA after each try; ALTCHA only when a try may have spent its solution, solving anew at once', async () => {
    const { form } = await createOwner(t.services);
    // Stand-ins with the vendors' APIs: page globals for hCaptcha and reCAPTCHA, the element's own methods for ALTCHA.
    const stubs = `<script>
      window.resets = [];
      window.hcaptcha = { reset: function () { window.resets.push('hcaptcha'); } };
      window.grecaptcha = { reset: function () { window.resets.push('recaptcha'); } };
      customElements.define('altcha-widget', class extends HTMLElement {
        reset() { window.resets.push('altcha'); this.state = 'unverified'; }
        verify() { window.resets.push('altcha-verify'); this.state = 'verified'; return Promise.resolve(); }
        getState() { return this.state || 'unverified'; }
      });
    </script>`;
    const { tab } = await openPage(
      stubs + formHtml(form, '', '<label>Name <input name="name" value="Ada"></label><div class="h-captcha"></div><div class="g-recaptcha"></div><altcha-widget></altcha-widget>'),
    );
    const resets = async () => (await tab.evaluate(() => (window as unknown as { resets: string[] }).resets.splice(0))).sort();
    // A widget copied without auto="onload" is started by the script as the page loads.
    await tab.waitForFunction(() => (window as unknown as { resets: string[] }).resets.includes('altcha-verify'));
    expect(await resets()).toEqual(['altcha-verify']);
    let answer: 'refused' | 'failed' | 'real' = 'refused';
    await tab.route(submitUrl(form), async (route) => {
      if (route.request().method() !== 'POST' || answer === 'real') return route.continue();
      const headers = { 'access-control-allow-origin': '*', 'content-type': 'application/json' };
      if (answer === 'refused') return route.fulfill({ status: 400, headers, body: JSON.stringify({ error: 'validation_failed', message: 'Refused.' }) });
      return route.fulfill({ status: 500, headers, body: JSON.stringify({ error: 'internal_error', message: 'Broken.' }) });
    });
    // A refusal (4xx) comes before the bot check: the solution was not spent and is kept.
    await tab.click('button');
    await announced(tab, 'Refused.');
    expect(await resets()).toEqual(['hcaptcha', 'recaptcha']);
    // A server error may have spent it: reset, and solved again at once.
    answer = 'failed';
    await tab.click('button');
    await announced(tab, messages.server);
    expect(await resets()).toEqual(['altcha', 'altcha-verify', 'hcaptcha', 'recaptcha']);
    answer = 'real';
    await tab.click('button');
    await announced(tab, messages.success);
    expect(await resets()).toEqual(['hcaptcha', 'recaptcha']);
    expect(await countStored(t, form.id)).toBe(1);
  });

  it('with JavaScript off the same page posts natively and lands on the thank-you page (303)', async () => {
    const { form, account } = await createOwner(t.services);
    const { tab } = await openPage(formHtml(form), { javaScriptEnabled: false });
    await Promise.all([tab.waitForURL(`${t.url}/thanks`), tab.click('button')]);
    expect(await tab.textContent('h1')).toContain('Thank you');
    const { submissions } = await t.services.submissionQueries.listSubmissions(account.id, form.id);
    expect(submissions).toHaveLength(1);
    expect(submissions[0]!.payload).toEqual({ name: 'Ada' });
  });
});
