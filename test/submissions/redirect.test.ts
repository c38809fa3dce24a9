import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { BROWSER_ACCEPT, submit } from '../helpers/submit.js';

let t: AppUnderTest;
let formId: string;
let bareFormId: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { BASE_URL: 'https://forms.example.com' } });
  const owner = await createOwner(t.services);
  formId = (await createForm(t.services, owner.account.id, { successUrl: 'https://site.example/thanks', allowedRedirectHosts: ['shop.example', 'app.example:8443'] })).id;
  bareFormId = owner.form.id;
});
afterAll(async () => t?.close());

async function locationFor(redirect: string, target = formId): Promise<string | null> {
  const res = await submit(t, target, { form: { name: 'Ada', redirect } }, BROWSER_ACCEPT);
  expect(res.status).toBe(303);
  return res.headers.get('location');
}

describe('the redirect field', () => {
  it.each([
    ['https://site.example/custom?x=1', 'https://site.example/custom?x=1'],
    ['http://site.example/plain', 'http://site.example/plain'],
    ['https://shop.example/cart', 'https://shop.example/cart'],
    ['https://app.example:8443/done', 'https://app.example:8443/done'],
    ['https://SHOP.example/upper', 'https://shop.example/upper'],
  ])('honours %s (an allowed host)', async (redirect, expected) => {
    expect(await locationFor(redirect)).toBe(expected);
  });

  it.each([
    'https://evil.example/',
    '//evil.example/',
    '/relative',
    'javascript:alert(1)',
    'data:text/html,hi',
    'ftp://site.example/file',
    'https://site.example@evil.example/',
    'https://user:pass@site.example/',
    'https://evil.example\\@site.example/',
    'https://site.example.evil.example/',
    'not a url',
  ])('ignores %s and uses the success URL', async (redirect) => {
    expect(await locationFor(redirect)).toBe('https://site.example/thanks');
  });

  it('without a success URL only the allowed hosts count, and the fallback is /thanks', async () => {
    expect(await locationFor('https://site.example/x', bareFormId)).toBe('https://forms.example.com/thanks');
  });
});

describe('the error redirect', () => {
  it.each([
    ['https://site.example/oops', 'https://site.example/oops?error=access_denied'],
    ['https://site.example/oops?ref=a%20b&flag', 'https://site.example/oops?ref=a%20b&flag&error=access_denied'],
    ['https://site.example/oops?q=1+2&empty=&x=%2B', 'https://site.example/oops?q=1+2&empty=&x=%2B&error=access_denied'],
    ['https://site.example/oops?', 'https://site.example/oops?error=access_denied'],
    ['https://site.example/oops?a=1&', 'https://site.example/oops?a=1&error=access_denied'],
    ['https://site.example/oops?a=1#top', 'https://site.example/oops?a=1&error=access_denied#top'],
  ])('appends error=<code> to %s leaving the query as written', async (errorUrl, expected) => {
    const owner = await createOwner(t.services, { form: { errorUrl, accessKey: 'sesame' } });
    const res = await submit(t, owner.form.id, { form: { name: 'Ada', access_key: 'wrong' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(expected);
  });
});
