import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { buildSpecApp, STAND_IN_CLIENT_SCRIPT } from '../helpers/spec-app.js';

// What every request meets before a feature answers it: health, the error envelope, request IDs,
// one spelling of each path, the management API's key check, the documents the app serves.
let t: AppUnderTest;
beforeAll(async () => {
  t = await buildSpecApp();
});
afterAll(async () => t?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('health', () => {
  it('answers /healthz, and /readyz with the database up and Redis not configured', async () => {
    const health = await t.fetch('/healthz');
    expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
    const ready = await t.fetch('/readyz');
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok', checks: { database: 'ok', redis: 'off' } }]);
  });
});

describe('every answer', () => {
  it('an unknown route is the not_found envelope naming the method and path, never the query', async () => {
    const res = await t.fetch('/no/such/route?token=secret', { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'not_found', message: 'No route for DELETE /no/such/route.' });
  });

  it('forbids MIME sniffing and names its request, taking an acceptable client ID', async () => {
    for (const path of ['/healthz', '/nope', '/v1/openapi.json']) {
      const res = await t.fetch(path);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('x-request-id'), path).toMatch(UUID);
    }
    const sent = async (id: string) => (await t.fetch('/healthz', { headers: { 'x-request-id': id } })).headers.get('x-request-id');
    expect(await sent('trace-42 from the proxy')).toBe('trace-42 from the proxy');
    expect(await sent('x'.repeat(128))).toBe('x'.repeat(128));
    expect(await sent('x'.repeat(129))).toMatch(UUID);
    expect(await sent('tab\tinside')).toMatch(UUID);
  });

  it('sends the bare address to the dashboard', async () => {
    const res = await t.fetch('/', { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([302, '/dashboard']);
  });
});

describe('path spellings', () => {
  it('escaped letters and doubled slashes reach the route of the canonical path', async () => {
    for (const path of ['/%68ealthz', '//healthz', '/healthz/', '/v1//%6fpenapi.json']) {
      expect((await t.fetch(path)).status, path).toBe(200);
    }
    // An escaped slash is not a separator: no route has that path.
    expect((await t.fetch('/v1%2Fopenapi.json')).status).toBe(404);
  });
});

describe('the management API', () => {
  it('refuses a request without a valid key', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer fgk_not-a-key' }, { authorization: 'Basic Zm9vOmJhcg==' }, { authorization: 'Bearer ' }];
    for (const headers of attempts) {
      for (const path of ['/v1/api/me', '/v1/api/forms']) {
        const res = await t.fetch(path, { headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(await res.json()).toMatchObject({ error: 'unauthorized' });
      }
    }
  });

  it('answers a valid key with its account', async () => {
    const owner = await createOwner(t.services);
    const res = await t.fetch('/v1/api/me', { headers: owner.auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { id: owner.account.id, email: owner.account.email } });
  });
});

describe('documents', () => {
  it('serves the OpenAPI document of the public and management routes', async () => {
    const res = await t.fetch('/v1/openapi.json');
    expect(res.status).toBe(200);
    const document = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/submit/{formId}', '/v1/api/forms']));
    expect(Object.keys(document.paths).some((path) => path.startsWith('/dashboard'))).toBe(false);
  });

  it('serves the browser script it was given, under its versioned name too', async () => {
    const plain = await t.fetch('/v1/client.js');
    expect(plain.status).toBe(200);
    expect(Buffer.from(await plain.arrayBuffer()).equals(STAND_IN_CLIENT_SCRIPT.body)).toBe(true);
    expect((await t.fetch(STAND_IN_CLIENT_SCRIPT.versionedPath)).status).toBe(200);
  });
});
