import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { BROWSER_ACCEPT, countStored, JSON_ACCEPT, submit, type Body } from '../helpers/submit.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services);
});
afterAll(async () => {
  await t?.close();
});

const multipart = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return { multipart: data };
};

/** The same fields sent in each of the three encodings. */
const encodings = (fields: Record<string, string>): Array<[string, Body]> => [
  ['JSON', { json: fields }],
  ['urlencoded', { form: fields }],
  ['multipart', multipart(fields)],
];

describe('empty submissions', () => {
  let formId: string;
  beforeAll(async () => {
    formId = (await createForm(t.services, owner.account.id, { accessKey: 'sesame-key' })).id;
  });

  it.each([
    ...encodings({ access_key: 'sesame-key' }),
    ...encodings({ access_key: 'sesame-key', name: '   ', message: '' }),
  ])('%s with only control fields or blank values is validation_failed "The submission is empty", nothing stored', async (_, body) => {
    const before = await countStored(t, formId);
    const res = await submit(t, formId, body, JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'validation_failed', message: 'The submission is empty' });
    expect(await countStored(t, formId)).toBe(before);
  });

  it.each([
    [{ access_key: 'sesame-key', n: 0 }],
    [{ access_key: 'sesame-key', agreed: false }],
    [{ access_key: 'sesame-key', tags: ['', ' ', 'x'] }],
  ])('numbers, booleans and a non-blank array entry count as content: %j is stored', async (fields) => {
    const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });

  it('JSON null and empty arrays are no content', async () => {
    const res = await submit(t, formId, { json: { access_key: 'sesame-key', a: null, b: [], c: [null, '  '] } }, JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe('The submission is empty');
  });

  it('a bot that fills only the honeypot still gets the silent spam answer, stored as spam', async () => {
    const before = await countStored(t, formId);
    const res = await submit(t, formId, { json: { access_key: 'sesame-key', _honey: 'I am a bot' } }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, filtered: 'spam' });
    expect(await countStored(t, formId)).toBe(before + 1);
  });

  it('in redirect mode goes to the error URL with error=validation_failed', async () => {
    const form = await createForm(t.services, owner.account.id, { errorUrl: 'https://site.example/oops?from=form' });
    const res = await submit(t, form.id, { form: { message: ' ' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://site.example/oops?from=form&error=validation_failed');
    expect(await countStored(t, form.id)).toBe(0);
  });

  it('without an error URL answers the hosted error page with status 400', async () => {
    const form = await createForm(t.services, owner.account.id, {});
    const res = await submit(t, form.id, { form: { message: '' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('required fields per form', () => {
  let formId: string;
  beforeAll(async () => {
    formId = (await createForm(t.services, owner.account.id, { requiredFields: ['email', 'message'], errorUrl: 'https://site.example/error' })).id;
  });

  it.each(encodings({ email: 'a@example.com', message: '  ' }))('%s: each missing or blank one is a field error', async (_, body) => {
    const res = await submit(t, formId, body, JSON_ACCEPT);
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: string; fieldErrors: Record<string, string> };
    expect(answer.error).toBe('validation_failed');
    expect(Object.keys(answer.fieldErrors)).toEqual(['message']);
    expect(await countStored(t, formId)).toBe(0);
  });

  it('names every missing field at once', async () => {
    const res = await submit(t, formId, { json: { name: 'Ada' } }, JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { fieldErrors: Record<string, string> }).fieldErrors).toEqual({
      email: expect.any(String),
      message: expect.any(String),
    });
  });

  it.each(encodings({ name: 'Ada' }).filter(([name]) => name !== 'JSON'))('%s in redirect mode goes to the error URL with error=validation_failed', async (_, body) => {
    const res = await submit(t, formId, body, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://site.example/error?error=validation_failed');
  });

  it.each(encodings({ email: 'a@example.com', message: 'Hello' }))('%s with every required field is accepted', async (_, body) => {
    const res = await submit(t, formId, body, JSON_ACCEPT);
    expect(res.status).toBe(200);
  });

  it('a field named __proto__ can be required and is read as data', async () => {
    const form = await createForm(t.services, owner.account.id, { requiredFields: ['__proto__'] });
    const refused = await submit(t, form.id, { form: { other: 'x' } }, JSON_ACCEPT);
    expect(refused.status).toBe(400);
    expect(JSON.parse(await refused.text())).toMatchObject({ fieldErrors: { ['__proto__']: 'This field is required.' } });
    expect((await submit(t, form.id, { form: Object.fromEntries([['__proto__', 'x']]) as Record<string, string> }, JSON_ACCEPT)).status).toBe(200);
  });

  it('the spam rules still come first: a blocked term is filed as spam even with a required field missing', async () => {
    const form = await createForm(t.services, owner.account.id, { requiredFields: ['email'], blockedTerms: ['casino'] });
    const res = await submit(t, form.id, { json: { message: 'casino' } }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ filtered: 'spam' });
  });

  it('the setting is checked and "" clears it', async () => {
    await expect(t.services.forms.updateForm(formId, { requiredFields: ['x'.repeat(257)] })).rejects.toMatchObject({
      code: 'validation_failed',
      fieldErrors: { requiredFields: expect.any(String) },
    });
    const cleared = await t.services.forms.updateForm(formId, { requiredFields: [] });
    expect(cleared.requiredFields).toEqual([]);
  });
});
