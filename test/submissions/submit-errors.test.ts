import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, countStored, submit } from '../helpers/submit.js';

let t: TestApp;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await startTestApp({ env: { SUBMIT_MAX_BODY_BYTES: '4096' } });
  owner = await createOwner(t.services);
});
afterAll(async () => t?.close());

describe('submit errors in JSON mode', () => {
  it.each([
    ['text/plain', 'hello'],
    ['application/xml', '<a/>'],
  ])('refuses Content-Type %s with validation_failed', async (contentType, raw) => {
    const res = await submit(t, owner.form.id, { raw, contentType }, JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'validation_failed', message: expect.any(String) });
  });

  it('refuses a body without Content-Type', async () => {
    const res = await fetch(`${t.url}/v1/submit/${owner.form.id}`, { method: 'POST', headers: JSON_ACCEPT, body: new Uint8Array([97, 61, 98]) });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('validation_failed');
  });

  it('names the offending field of a non-flat JSON body', async () => {
    const res = await submit(t, owner.form.id, { json: { ok: 'x', address: { city: 'Paris' } } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'validation_failed', message: expect.any(String), fieldErrors: { address: expect.any(String) } });
  });

  it.each(['GET', 'PUT', 'PATCH', 'DELETE'])('answers %s with 405 and Allow', async (method) => {
    const res = await fetch(`${t.url}/v1/submit/${owner.form.id}`, { method, headers: JSON_ACCEPT });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect((await res.json()).error).toBe('method_not_allowed');
  });

  it('answers a body over SUBMIT_MAX_BODY_BYTES with 413, for every body type', async () => {
    const big = 'x'.repeat(5000);
    for (const body of [{ json: { big } }, { form: { big } }]) {
      const res = await submit(t, owner.form.id, body, JSON_ACCEPT);
      expect(res.status).toBe(413);
      expect((await res.json()).error).toBe('payload_too_large');
    }
    const multipart = new FormData();
    multipart.append('file', new Blob([big]), 'big.txt');
    const res = await submit(t, owner.form.id, { multipart }, JSON_ACCEPT);
    expect(res.status).toBe(413);
    expect(await countStored(t, owner.form.id)).toBe(0);
  });

  it('answers an unknown form with 404 and an inactive one with form_inactive', async () => {
    const unknown = await submit(t, 'frm_doesnotexist0000', { json: { a: 1 } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('not_found');
    const inactive = await createForm(t.services, owner.account.id, { isActive: false });
    const res = await submit(t, inactive.id, { json: { a: 1 } });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('form_inactive');
    expect(await countStored(t, inactive.id)).toBe(0);
  });

  it('answers an unknown form in the same envelope whatever the shape of its ID, and again from the cache', async () => {
    for (const id of ['frm_doesnotexist0000', 'frm_doesnotexist0000', 'frm_short', 'sub_doesnotexist0000', `frm_${'0'.repeat(32)}`]) {
      const res = await submit(t, id, { json: { a: 1 } }, { ...JSON_ACCEPT, origin: 'https://site.example' });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('access-control-allow-origin')).toBe('https://site.example');
      expect(await res.text()).toBe('{"error":"not_found","message":"Form not found."}');
    }
  });

  it('refuses an unknown form before reading the body: a bad body or one still arriving gets 404', async () => {
    const badBody = await submit(t, 'frm_doesnotexist0000', { raw: 'hello', contentType: 'text/plain' }, JSON_ACCEPT);
    expect(badBody.status).toBe(404);
    expect((await badBody.json()).error).toBe('not_found');
    // Headers and half the declared body: the answer comes without waiting for the rest, for an
    // ID read from the database (its shape is a form ID's) and one refused by its shape.
    const { port } = new URL(t.url);
    for (const formId of ['frm_neverExisted0000', 'frm_neverexisted00000']) {
      const socket = connect(Number(port), '127.0.0.1');
      try {
        const answer = new Promise<string>((resolve, reject) => {
          let text = '';
          socket.on('data', (chunk: Buffer) => {
            text += chunk.toString('latin1');
            if (text.includes('\r\n\r\n')) resolve(text);
          });
          socket.on('error', reject);
        });
        socket.write(
          `POST /v1/submit/${formId} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n` +
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
        );
        expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
      } finally {
        socket.destroy();
      }
    }
    // A known form still reads its whole body, and the early refusal did not break the next request.
    const ok = await submit(t, owner.form.id, { json: { a: 'after' } }, JSON_ACCEPT);
    expect(ok.status).toBe(200);
  });

  it('refuses a known form (inactive, access key, origin) with the exact envelope, repeatedly', async () => {
    const inactive = await createForm(t.services, owner.account.id, { isActive: false });
    const locked = await createForm(t.services, owner.account.id, { accessKey: 'open-sesame' });
    const shop = await createForm(t.services, owner.account.id, { allowedOrigins: ['shop.example'] });
    const expected: Array<[string, Record<string, unknown>, Record<string, string>, number, string]> = [
      [inactive.id, { a: 1 }, {}, 403, '{"error":"form_inactive","message":"This form is not accepting submissions."}'],
      [locked.id, { a: 1, access_key: 'wrong' }, {}, 403, '{"error":"access_denied","message":"A valid access_key is required to submit to this form."}'],
      [shop.id, { a: 1 }, { origin: 'https://evil.example' }, 403, '{"error":"origin_not_allowed","message":"This form does not accept submissions from this website."}'],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [formId, json, headers, status, body] of expected) {
        const res = await submit(t, formId, { json }, { ...JSON_ACCEPT, ...headers });
        expect(res.status).toBe(status);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await res.text()).toBe(body);
      }
    }
    for (const form of [inactive, locked, shop]) expect(await countStored(t, form.id)).toBe(0);
  });

  it('requires the access key when the form has one', async () => {
    const locked = await createForm(t.services, owner.account.id, { accessKey: 'open-sesame' });
    for (const fields of [{ a: 1 }, { a: 1, access_key: 'wrong' }, { a: 1, access_key: '' }, { a: 1, access_key: 42 }]) {
      const res = await submit(t, locked.id, { json: fields });
      expect(res.status).toBe(403);
      expect((await res.json()).error).toBe('access_denied');
    }
    expect(await countStored(t, locked.id)).toBe(0);
    const ok = await submit(t, locked.id, { json: { a: 1, access_key: 'open-sesame' } });
    expect(ok.status).toBe(200);
    const viaForm = await submit(t, locked.id, { form: { a: '1', access_key: 'open-sesame' } }, JSON_ACCEPT);
    expect(viaForm.status).toBe(200);
    expect(await countStored(t, locked.id)).toBe(2);
  });
});

describe('submit errors in redirect mode', () => {
  it("redirects to the form's error URL with ?error=<code>, or &error= when it has a query", async () => {
    const form = await createForm(t.services, owner.account.id, { accessKey: 'k', errorUrl: 'https://site.example/oops' });
    const res = await submit(t, form.id, { form: { a: '1' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://site.example/oops?error=access_denied');
    const withQuery = await createForm(t.services, owner.account.id, { isActive: false, errorUrl: 'https://site.example/oops?lang=fr' });
    const res2 = await submit(t, withQuery.id, { form: { a: '1' } }, BROWSER_ACCEPT);
    expect(res2.headers.get('location')).toBe('https://site.example/oops?lang=fr&error=form_inactive');
  });

  it('answers a hosted HTML error page with the code status when there is no error URL', async () => {
    const inactive = await createForm(t.services, owner.account.id, { isActive: false });
    const res = await submit(t, inactive.id, { form: { a: '1' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('not accepting submissions');
    const unknown = await submit(t, 'frm_doesnotexist0000', { form: { a: '1' } }, BROWSER_ACCEPT);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('does not exist');
  });

  it('sends parse errors of an HTML post to the error URL too', async () => {
    const form = await createForm(t.services, owner.account.id, { errorUrl: 'https://site.example/oops' });
    const res = await submit(t, form.id, { raw: 'a=%E0%A4%A', contentType: 'application/x-www-form-urlencoded' }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://site.example/oops?error=validation_failed');
  });
});

describe('submit rate limit', () => {
  it('limits each client IP per form, with Retry-After, and other forms stay open', async () => {
    const limited = await startTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const o = await createOwner(limited.services);
      const other = await createForm(limited.services, o.account.id);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await submit(limited, o.form.id, { json: { i } })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const res = await submit(limited, o.form.id, { json: { i: 6 } });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
      expect((await submit(limited, other.id, { json: { i: 0 } })).status).toBe(200);
      expect(await countStored(limited, o.form.id)).toBe(3);
    } finally {
      await limited.close();
    }
  });
});
