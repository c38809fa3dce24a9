import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRedactPaths } from '../../src/platform/http/request-log.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';

const logLines: string[] = [];
const captured = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString('utf8'));
    done();
  },
});

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;
let intruder: Awaited<ReturnType<typeof createOwner>>;
let submissionId: string;
let hookId: string;
let hookSecret: string;
let revokedKey: string;
const accessKey = 'access-key-that-must-not-be-logged';

interface Route {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: () => string;
  body?: () => unknown;
  /** Whether the route names a resource of the owner (so another account gets 404). */
  scoped: boolean;
}

const routes: Route[] = [
  { name: 'GET /v1/api/me', method: 'GET', path: () => '/v1/api/me', scoped: false },
  { name: 'GET /v1/api/forms', method: 'GET', path: () => '/v1/api/forms', scoped: false },
  { name: 'GET /v1/api/forms/:id/submissions', method: 'GET', path: () => `/v1/api/forms/${owner.form.id}/submissions`, scoped: true },
  { name: 'GET /v1/api/submissions/:id', method: 'GET', path: () => `/v1/api/submissions/${submissionId}`, scoped: true },
  { name: 'GET /v1/api/hooks', method: 'GET', path: () => '/v1/api/hooks', scoped: false },
  {
    name: 'POST /v1/api/hooks',
    method: 'POST',
    path: () => '/v1/api/hooks',
    body: () => ({ formId: owner.form.id, targetUrl: 'https://hooks.example.com/in' }),
    scoped: true,
  },
  { name: 'DELETE /v1/api/hooks/:id', method: 'DELETE', path: () => `/v1/api/hooks/${hookId}`, scoped: true },
];

// Each call comes from its own client address (one trusted proxy hop), so the per-address limit
// on requests without a valid key (30 a minute) does not turn this matrix's 401s into 429s.
let nextClient = 0;

function call(route: Route, authorization?: string): Promise<Response> {
  nextClient++;
  const headers: Record<string, string> = { 'x-forwarded-for': `198.51.100.${(nextClient % 250) + 1}, 203.0.113.${Math.floor(nextClient / 250) + 1}` };
  if (authorization !== undefined) headers.authorization = authorization;
  const body = route.body?.();
  if (body) headers['content-type'] = 'application/json';
  return t.fetch(`${route.path()}`, {
    method: route.method,
    headers,
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

beforeAll(async () => {
  t = await buildTestApp({
    env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'trace', TRUST_PROXY: '2' },
    loggerInstance: pino({ level: 'trace', redact: logRedactPaths }, captured),
  });
  owner = await createOwner(t.services, { planId: 'pro', form: { accessKey } });
  intruder = await createOwner(t.services, { planId: 'business' });
  revokedKey = (await t.services.apiKeys.createApiKey(owner.account.id, 'old')).apiKey;
  const revoked = (await t.services.apiKeys.listApiKeys(owner.account.id)).find((k) => k.name === 'old')!;
  await t.services.apiKeys.revokeApiKey(revoked.id);

  const submitted = await t.fetch(`/v1/submit/${owner.form.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ name: 'Ada', access_key: accessKey }),
  });
  expect(submitted.status).toBe(200);
  submissionId = ((await submitted.json()) as { submissionId: string }).submissionId;

  const hook = await t.fetch('/v1/api/hooks', {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ formId: owner.form.id, targetUrl: 'https://127.0.0.1:9/in' }),
  });
  expect(hook.status).toBe(201);
  const created = (await hook.json()) as { hook: { id: string; secret: string } };
  hookId = created.hook.id;
  hookSecret = created.hook.secret;
});
afterAll(async () => t?.close());

describe('management API authentication and scoping', () => {
  for (const route of routes) {
    const { name } = route;

    it(`${name}: no key, malformed keys and a revoked key → 401 with WWW-Authenticate`, async () => {
      for (const authorization of [
        undefined,
        '',
        'Bearer',
        'Bearer ',
        'Token abc',
        'Basic dXNlcjpwYXNz',
        'Bearer not-a-key',
        'Bearer fgk_short',
        `Bearer ${owner.apiKey}x`,
        `Bearer  ${owner.apiKey} extra`,
        `Bearer ${revokedKey}`,
      ]) {
        const res = await call(route, authorization);
        expect(res.status, String(authorization)).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
      }
    });

    if (route.scoped) {
      it(`${name}: another account's key on the owner's IDs → 404, like a missing resource`, async () => {
        const res = await call(route, intruder.auth.authorization);
        expect(res.status).toBe(404);
        const body = await res.json();
        expect(body).toEqual({ error: 'not_found', message: expect.any(String) });
        // Indistinguishable from an ID that never existed.
        const missingIds = (text: string) => text.replace(/(frm|sub|hook)_[0-9A-Za-z]+/g, '$1_0000000000000000');
        const ownerBody = route.body;
        const missing = await call(
          {
            ...route,
            path: () => missingIds(route.path()),
            ...(ownerBody ? { body: () => JSON.parse(missingIds(JSON.stringify(ownerBody()))) as unknown } : {}),
          },
          owner.auth.authorization,
        );
        expect(missing.status).toBe(404);
        expect(await missing.json()).toEqual(body);
      });
    }
  }

  it("lists never show another account's resources", async () => {
    const forms = (await (await t.fetch('/v1/api/forms', { headers: intruder.auth })).json()) as { forms: Array<{ id: string }> };
    expect(forms.forms.map((f) => f.id)).toEqual([intruder.form.id]);
    const hooks = (await (await t.fetch('/v1/api/hooks', { headers: intruder.auth })).json()) as { hooks: unknown[] };
    expect(hooks.hooks).toEqual([]);
    const me = (await (await t.fetch('/v1/api/me', { headers: intruder.auth })).json()) as { user: { id: string } };
    expect(me.user.id).toBe(intruder.account.id);
  });

  it('the owner still reaches everything (the 404s above are about scoping, not broken routes)', async () => {
    const sub = await t.fetch(`/v1/api/submissions/${submissionId}`, { headers: owner.auth });
    expect(sub.status).toBe(200);
    const list = await t.fetch(`/v1/api/forms/${owner.form.id}/submissions`, { headers: owner.auth });
    expect(((await list.json()) as { submissions: unknown[] }).submissions).toHaveLength(1);
  });

  it('no secret ever reaches the log', async () => {
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    expect(log).toContain(owner.form.id); // requests were logged at all
    for (const secret of [owner.apiKey, intruder.apiKey, revokedKey, accessKey, hookSecret]) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(secret.slice(4, 24));
    }
  });
});
