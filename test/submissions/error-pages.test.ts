import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/platform/errors.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, submit } from '../helpers/submit.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services);
});
afterAll(async () => {
  await t?.close();
});

/** The explanation paragraph of a hosted page. */
const explanation = (html: string) => /<p>([^<]*)<\/p>/.exec(html)?.[1] ?? '';

describe('hosted error pages: each code its own plain message', () => {
  it('a wrong access key and a foreign origin are explained differently', async () => {
    const keyed = await createForm(t.services, owner.account.id, { accessKey: 'right' });
    const denied = await submit(t, keyed.id, { form: { message: 'hi', access_key: 'wrong' } }, BROWSER_ACCEPT);
    expect(denied.status).toBe(403);
    const deniedText = explanation(await denied.text());
    expect(deniedText).toMatch(/access key/);

    const guarded = await createForm(t.services, owner.account.id, { allowedOrigins: ['shop.example'] });
    const foreign = await submit(t, guarded.id, { form: { message: 'hi' } }, { ...BROWSER_ACCEPT, origin: 'https://elsewhere.example' });
    expect(foreign.status).toBe(403);
    const foreignText = explanation(await foreign.text());
    expect(foreignText).toMatch(/its own website/);
    expect(foreignText).not.toBe(deniedText);
  });

  it('every code has a message of its own on /thanks?error=', async () => {
    const texts = new Map<string, string>();
    for (const code of Object.keys(errorStatus)) {
      const res = await t.fetch(`/thanks?error=${code}`);
      texts.set(code, explanation(await res.text()));
    }
    const generic = explanation(await (await t.fetch('/thanks?error=nonsense')).text());
    // unauthorized, plan_required and precondition_failed belong to the management API, file_not_scanned to file
    // downloads: never to a submission.
    const notSubmit = new Set(['unauthorized', 'plan_required', 'file_not_scanned', 'precondition_failed']);
    const submitCodes = [...texts.keys()].filter((c) => !notSubmit.has(c));
    for (const code of submitCodes) expect(texts.get(code), code).not.toBe(generic);
    expect(new Set(submitCodes.map((c) => texts.get(c))).size).toBe(submitCodes.length);
  });

  it('"back to the site" on /thanks and the error pages: the Referer\'s http(s) page, never a query parameter, never Formgate itself', async () => {
    const backLinks = (html: string) => [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]);
    const page = async (path: string, referer?: string) => backLinks(await (await t.fetch(`${path}`, { headers: referer ? { referer } : {} })).text());
    const site = 'https://shop.example:8443/contact/form.html?x=1#top';
    // The form's own page, as the browser named it (a cross-origin Referer is often its origin only).
    expect(await page('/thanks?error=access_denied', site)).toEqual(['https://shop.example:8443/contact/form.html?x=1']);
    expect(await page('/thanks', site)).toEqual(['https://shop.example:8443/contact/form.html?x=1']);
    expect(await page(`/thanks?form=${owner.form.id}`, 'http://127.0.0.1:9/page')).toEqual(['http://127.0.0.1:9/page']);
    expect(await page('/thanks', 'https://shop.example/')).toEqual(['https://shop.example/']);
    // No Referer, a non-http(s) one, one with credentials, garbage, or Formgate's own pages: no link, whatever the query says.
    expect(await page('/thanks?error=access_denied&back=https://evil.example&redirect=https://evil.example')).toEqual([]);
    for (const referer of ['javascript:alert(1)', 'data:text/html,x', 'not a url', 'https://user:pw@shop.example/', `${t.config.baseUrl}/dashboard`]) {
      expect(await page('/thanks?error=rate_limited', referer), referer).toEqual([]);
    }
    // The error page the submit itself answers (no error URL set): back to the page that held the form.
    const keyed = await createForm(t.services, owner.account.id, { accessKey: 'right' });
    const denied = await submit(t, keyed.id, { form: { message: 'hi' } }, { ...BROWSER_ACCEPT, referer: site });
    expect(denied.status).toBe(403);
    expect(backLinks(await denied.text())).toEqual(['https://shop.example:8443/contact/form.html?x=1']);
    const quoted = await submit(t, keyed.id, { form: { message: 'hi' } }, { ...BROWSER_ACCEPT, referer: 'https://a.example/"><script>x</script>' });
    const quotedHtml = await quoted.text();
    expect(backLinks(quotedHtml)).toEqual(['https://a.example/%22%3E%3Cscript%3Ex%3C/script%3E']);
    expect(quotedHtml).not.toContain('<script>x');
  });

  it("with allowed origins, only a Referer on one of them gets a link: no way to point it elsewhere", async () => {
    const backLinks = (html: string) => [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]);
    const guarded = await createForm(t.services, owner.account.id, { allowedOrigins: ['shop.example'], requiredFields: ['name'] });
    const fromShop = await submit(t, guarded.id, { form: { message: 'hi' } }, { ...BROWSER_ACCEPT, referer: 'https://shop.example/contact?lang=de' });
    expect(fromShop.status).toBe(400);
    expect(backLinks(await fromShop.text())).toEqual(['https://shop.example/contact?lang=de']);
    const thanks = await t.fetch(`/thanks?form=${guarded.id}&error=validation_failed`, { headers: { referer: 'https://evil.example/phish' } });
    expect(backLinks(await thanks.text())).toEqual([]);
  });

  it('the JSON messages differ too', async () => {
    const keyed = await createForm(t.services, owner.account.id, { accessKey: 'right' });
    const guarded = await createForm(t.services, owner.account.id, { allowedOrigins: ['shop.example'] });
    const denied = (await (await submit(t, keyed.id, { json: { m: 'x' } }, JSON_ACCEPT)).json()) as { message: string };
    const foreign = (await (await submit(t, guarded.id, { json: { m: 'x' } }, { ...JSON_ACCEPT, origin: 'https://x.example' })).json()) as { message: string };
    expect(denied.message).toMatch(/access_key/);
    expect(foreign.message).not.toBe(denied.message);
  });
});
