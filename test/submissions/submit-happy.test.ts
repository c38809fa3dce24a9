import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { FORM_CACHE_TTL_MS } from '../../src/features/forms/form-cache.js';
import { findFormRowById, insertForm } from '../../src/features/forms/form.repository.js';
import { newId } from '../../src/platform/lib/ids.js';
import { createForm, createOwner, servicesFor } from '../helpers/factories.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, countStored, storedSubmission, submit } from '../helpers/submit.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp({ env: { BASE_URL: 'https://forms.example.com' } });
  owner = await createOwner(t.services);
});
afterAll(async () => t?.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('submit: the three body types', () => {
  it('stores a JSON object with its value types, answering JSON', async () => {
    const res = await submit(t, owner.form.id, { json: { name: 'Ada', age: 36, subscribed: true, note: null, tags: ['a', 1, false] } }, { 'user-agent': 'UA/1', referer: 'https://site.example/contact' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body).toEqual({ ok: true, submissionId: expect.stringMatching(/^sub_[0-9A-Za-z]{24}$/) });
    const row = await storedSubmission(t, body.submissionId);
    expect(row).toMatchObject({
      form_id: owner.form.id,
      status: 'delivered',
      is_spam: 0,
      ip: '127.0.0.1',
      country: 'XX',
      user_agent: 'UA/1',
      referer: 'https://site.example/contact',
    });
    expect(row!.created_at).toMatch(ISO_MS);
    expect(JSON.parse(row!.payload)).toEqual({ name: 'Ada', age: 36, subscribed: true, note: null, tags: ['a', 1, false] });
  });

  it('stores urlencoded fields, repeated names as arrays in order', async () => {
    const res = await submit(t, owner.form.id, { form: { name: 'Ada', topic: ['b', 'a', 'c'], empty: '' } }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    const { submissionId } = await res.json();
    expect(JSON.parse((await storedSubmission(t, submissionId))!.payload)).toEqual({ name: 'Ada', topic: ['b', 'a', 'c'], empty: '' });
  });

  it('stores multipart text fields and ignores file parts', async () => {
    const form = new FormData();
    form.append('name', 'Ada');
    form.append('topic', 'x');
    form.append('topic', 'y');
    form.append('cv', new Blob(['%PDF-1.4 secret file contents'], { type: 'application/pdf' }), 'cv.pdf');
    const res = await submit(t, owner.form.id, { multipart: form }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    const { submissionId } = await res.json();
    const row = await storedSubmission(t, submissionId);
    expect(JSON.parse(row!.payload)).toEqual({ name: 'Ada', topic: ['x', 'y'] });
    expect(row!.payload).not.toContain('secret file');
  });

  it('reads multipart field names as quoted strings: a lone backslash is kept, \\\\ and \\" are escapes', async () => {
    // Browsers write a name's backslashes as they are (only `"` and line breaks are
    // percent-encoded); busboy reads the quoted name as a quoted string in which a backslash
    // escapes only a following `\` or `"`.
    const boundary = 'fg-boundary';
    const part = (disposition: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n${value}\r\n`;
    const raw =
      part('name="C:\\dir"', 'kept') + part('name="a\\\\b"', 'escaped') + part('name="say \\"hi\\""', 'quoted') + `--${boundary}--\r\n`;
    const res = await submit(t, owner.form.id, { raw, contentType: `multipart/form-data; boundary=${boundary}` }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    const { submissionId } = await res.json();
    expect(JSON.parse((await storedSubmission(t, submissionId))!.payload)).toEqual({ 'C:\\dir': 'kept', 'a\\b': 'escaped', 'say "hi"': 'quoted' });
  });

  it('keeps __proto__, constructor and prototype as plain data', async () => {
    const res = await submit(t, owner.form.id, { raw: '{"__proto__":"p","constructor":"c","prototype":"q","ok":1}', contentType: 'application/json' });
    expect(res.status).toBe(200);
    const { submissionId } = await res.json();
    const row = await storedSubmission(t, submissionId);
    expect(row!.payload).toBe('{"__proto__":"p","constructor":"c","prototype":"q","ok":1}');
    const viaForm = await submit(t, owner.form.id, { raw: '__proto__=x&constructor=y', contentType: 'application/x-www-form-urlencoded' }, JSON_ACCEPT);
    const stored = JSON.parse((await storedSubmission(t, (await viaForm.json()).submissionId))!.payload, (k, v) => v);
    expect(Object.keys(stored)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('submit: control fields', () => {
  it.each(['_honey', '_gotcha', 'botfield', 'url', 'website'])('a filled %s honeypot stores spam and answers like success', async (honeypot) => {
    const res = await submit(t, owner.form.id, { form: { name: 'Bot', [honeypot]: 'http://spam.example' } }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ ok: true, submissionId: expect.any(String), filtered: 'spam' });
    const row = await storedSubmission(t, body.submissionId);
    expect(row!.is_spam).toBe(1);
    expect(JSON.parse(row!.payload)).toEqual({ name: 'Bot' });
  });

  it('an empty honeypot is not spam, and no control field is stored', async () => {
    const res = await submit(t, owner.form.id, {
      form: { name: 'Ada', _honey: '', _gotcha: '', botfield: '', url: '', website: '', 'cf-turnstile-response': 'tok', access_key: 'k', redirect: 'https://x.example' },
    }, JSON_ACCEPT);
    const body = await res.json();
    expect(body).toEqual({ ok: true, submissionId: expect.any(String) });
    expect(JSON.parse((await storedSubmission(t, body.submissionId))!.payload)).toEqual({ name: 'Ada' });
  });

  it('a spam submission in redirect mode gets the normal redirect', async () => {
    const res = await submit(t, owner.form.id, { form: { _honey: 'x' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://forms.example.com/thanks');
  });
});

describe('submit: response modes', () => {
  it('an HTML form post accepting text/html is redirected (303) to the hosted /thanks page', async () => {
    const res = await submit(t, owner.form.id, { form: { name: 'Ada' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://forms.example.com/thanks');
  });

  it('a configured success URL makes any post a redirect, unless Accept asks for JSON', async () => {
    const form = await createForm(t.services, owner.account.id, { successUrl: 'https://site.example/done' });
    const json = await submit(t, form.id, { json: { a: 1 } });
    expect(json.status).toBe(303);
    expect(json.headers.get('location')).toBe('https://site.example/done');
    const forced = await submit(t, form.id, { json: { a: 1 } }, JSON_ACCEPT);
    expect(forced.status).toBe(200);
    expect((await forced.json()).ok).toBe(true);
  });

  it('a JSON post without Accept and without a success URL answers JSON', async () => {
    const res = await submit(t, owner.form.id, { json: { a: 1 } });
    expect(res.status).toBe(200);
    expect((await res.json()).ok).toBe(true);
  });

  it('Accept: application/json forces JSON for a urlencoded post', async () => {
    const res = await submit(t, owner.form.id, { form: { a: '1' } }, { accept: 'application/json' });
    expect(res.status).toBe(200);
  });

  it('serves /thanks and a friendly page for /thanks?error=', async () => {
    const thanks = await t.fetch('/thanks');
    expect(thanks.status).toBe(200);
    expect(thanks.headers.get('content-type')).toMatch(/text\/html/);
    expect(await thanks.text()).toContain('Thank you');
    const error = await t.fetch('/thanks?error=form_inactive');
    expect(error.status).toBe(200);
    expect(await error.text()).toContain('not accepting submissions');
    const hostile = await t.fetch('/thanks?error=%3Cscript%3E');
    expect(await hostile.text()).not.toContain('<script>');
  });
});

describe('submit: CORS', () => {
  it('answers the preflight with 204 and the documented headers', async () => {
    const res = await t.fetch(`/v1/submit/${owner.form.id}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://site.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://site.example');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, Accept, Idempotency-Key');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
  });

  it('puts the allow-origin header on successes and errors, * without an Origin', async () => {
    const ok = await submit(t, owner.form.id, { json: { a: 1 } }, { origin: 'https://a.example' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(ok.headers.get('vary')).toMatch(/Origin/);
    const error = await submit(t, 'frm_unknown000000000', { json: { a: 1 } });
    expect(error.status).toBe(404);
    expect(error.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('submit: forms changed through another instance', () => {
  /** Submits until the answer has `status`; how long that took from `since`. */
  async function untilAnswered(formId: string, status: number, since: number, deadlineMs: number): Promise<number> {
    for (;;) {
      const res = await submit(t, formId, { json: { a: 1 } }, JSON_ACCEPT);
      await res.arrayBuffer();
      if (res.status === status) return Date.now() - since;
      if (Date.now() - since > deadlineMs) throw new Error(`still ${res.status} after ${deadlineMs} ms`);
    }
  }

  it('a form created on another instance is accepted within a second, though its ID was cached as unknown', async () => {
    const other = servicesFor(t.database.open());
    try {
      const template = await findFormRowById(other.handle.db, (await createForm(other, owner.account.id)).id);
      const formId = newId('frm');
      expect((await submit(t, formId, { json: { a: 1 } }, JSON_ACCEPT)).status).toBe(404);
      const created = Date.now();
      await insertForm(other.handle.db, { ...template!, id: formId });
      // The cache's second, plus room for a loaded machine's requests.
      await untilAnswered(formId, 200, created, FORM_CACHE_TTL_MS + 2000);
      expect(await countStored(t, formId)).toBeGreaterThan(0);
    } finally {
      await other.handle.close();
    }
  });

  it('a form deactivated and reactivated on another instance is refused, then accepted, each within a second', async () => {
    const other = servicesFor(t.database.open());
    try {
      let changed = Date.now();
      const form = await createForm(other, owner.account.id);
      // A form created elsewhere may be refused for up to a second (the form directory's).
      await untilAnswered(form.id, 200, changed, FORM_CACHE_TTL_MS + 2000);
      changed = Date.now();
      await other.forms.updateForm(form.id, { isActive: false });
      await untilAnswered(form.id, 403, changed, FORM_CACHE_TTL_MS + 2000);
      changed = Date.now();
      await other.forms.updateForm(form.id, { isActive: true });
      await untilAnswered(form.id, 200, changed, FORM_CACHE_TTL_MS + 2000);
    } finally {
      await other.handle.close();
    }
  });
});
