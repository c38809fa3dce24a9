import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner, setCreatedAt } from '../helpers/factories.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services, { planId: 'pro' });
});
afterAll(async () => t?.close());

function subscribe(targetUrl: unknown, formId: unknown = owner.form.id, auth = owner.auth) {
  return t.fetch('/v1/api/hooks', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ formId, targetUrl }),
  });
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('hook subscriptions: happy paths', () => {
  it('POST creates a hook with a one-time whsec_ secret; GET lists newest first without secrets; DELETE removes', async () => {
    const first = await subscribe('https://hooks.example.com/a');
    expect(first.status).toBe(201);
    const created = (await first.json()) as { hook: Record<string, string> };
    expect(created).toEqual({
      hook: {
        id: expect.stringMatching(/^hook_/),
        formId: owner.form.id,
        targetUrl: 'https://hooks.example.com/a',
        createdAt: expect.stringMatching(ISO_MS),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      },
    });
    const second = (await (await subscribe('https://hooks.example.com/b')).json()) as { hook: { id: string } };
    const listHookIds = async () => {
      const listed = (await (await t.fetch('/v1/api/hooks', { headers: owner.auth })).json()) as { hooks: Array<Record<string, string>> };
      expect(listed.hooks[0]).not.toHaveProperty('secret');
      return listed.hooks.map((h) => h.id);
    };
    // Fixed times: both may well have been created in one millisecond.
    await setCreatedAt(t.services, 'hooks', created.hook.id!, '2026-06-01T00:00:00.000Z');
    await setCreatedAt(t.services, 'hooks', second.hook.id, '2026-06-01T00:00:00.001Z');
    expect(await listHookIds()).toEqual([second.hook.id, created.hook.id!]);
    // A tie in one millisecond is broken by ID, descending.
    await setCreatedAt(t.services, 'hooks', second.hook.id, '2026-06-01T00:00:00.000Z');
    expect(await listHookIds()).toEqual([second.hook.id, created.hook.id!].sort().reverse());

    const deleted = await t.fetch(`/v1/api/hooks/${created.hook.id}`, { method: 'DELETE', headers: owner.auth });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const again = await t.fetch(`/v1/api/hooks/${created.hook.id}`, { method: 'DELETE', headers: owner.auth });
    expect(again.status).toBe(404);
  });

  it('business plans may subscribe too', async () => {
    const business = await createOwner(t.services, { planId: 'business' });
    expect((await subscribe('https://hooks.example.com/x', business.form.id, business.auth)).status).toBe(201);
  });
});

describe('hook subscriptions: errors', () => {
  it('a free plan gets plan_required', async () => {
    const free = await createOwner(t.services, { planId: 'free' });
    const res = await subscribe('https://hooks.example.com/a', free.form.id, free.auth);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'plan_required', message: expect.any(String) });
  });

  it("another account's form or hook is 404", async () => {
    const other = await createOwner(t.services, { planId: 'pro' });
    expect((await subscribe('https://hooks.example.com/a', other.form.id)).status).toBe(404);
    const theirs = (await (await subscribe('https://hooks.example.com/a', other.form.id, other.auth)).json()) as { hook: { id: string } };
    const res = await t.fetch(`/v1/api/hooks/${theirs.hook.id}`, { method: 'DELETE', headers: owner.auth });
    expect(res.status).toBe(404);
    expect((await t.fetch('/v1/api/hooks', { headers: other.auth }).then((r) => r.json())).hooks).toHaveLength(1);
  });

  it.each([
    [{}, 'formId'],
    [{ formId: 'x' }, 'targetUrl'],
    [{ formId: { id: 1 }, targetUrl: 'https://a.example' }, 'formId'],
    [{ formId: 'x', targetUrl: 'https://a.example', extra: 1 }, 'extra'],
  ])('a malformed body %j names %s', async (body, field) => {
    const res = await t.fetch('/v1/api/hooks', {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; fieldErrors: Record<string, string> };
    expect(json.error).toBe('validation_failed');
    expect(Object.keys(json.fieldErrors)).toContain(field);
  });

  it('a body that is not JSON is validation_failed', async () => {
    for (const [contentType, body] of [['application/json', '{"formId":'], ['text/plain', 'hello']]) {
      const res = await t.fetch('/v1/api/hooks', { method: 'POST', headers: { ...owner.auth, 'content-type': contentType! }, body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('validation_failed');
    }
  });
});

describe('hook subscriptions: SSRF matrix', () => {
  it.each([
    'https://127.0.0.1',
    'https://127.1',
    'https://0x7f000001',
    'https://2130706433',
    'https://localhost',
    'https://localhost.',
    'https://api.localhost',
    'https://10.0.0.1',
    'https://172.16.0.1',
    'https://192.168.1.1',
    'https://100.64.0.1',
    'https://169.254.169.254',
    'https://[::1]',
    'https://[::ffff:127.0.0.1]',
    'https://[::ffff:7f00:1]',
    'https://[fe80::1]',
    'https://[fd00::1]',
    'https://[64:ff9b::a9fe:a9fe]',
    'https://[2002:7f00:1::]',
    'https://[2001::1]',
    'https://0.0.0.0',
    'https://[::]',
    'https://224.0.0.1',
    'https://255.255.255.255',
    'http://example.com',
    'ftp://example.com',
    'https://user:pass@example.com',
    'not a url',
    '/relative',
  ])('refuses %s at subscription', async (targetUrl) => {
    const res = await subscribe(targetUrl);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'validation_failed', message: expect.any(String), fieldErrors: { targetUrl: expect.any(String) } });
  });

  it.each(['https://93.184.215.14/hook', 'https://[2606:4700::1111]/hook', 'https://hooks.zapier.com/hooks/standard/1/abc'])('accepts the public target %s', async (targetUrl) => {
    expect((await subscribe(targetUrl)).status).toBe(201);
  });

  it('HOOK_ALLOW_PRIVATE_TARGETS lifts the address rules but not https', async () => {
    const local = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    try {
      const o = await createOwner(local.services, { planId: 'pro' });
      const post = (targetUrl: string) =>
        local.fetch('/v1/api/hooks', { method: 'POST', headers: { ...o.auth, 'content-type': 'application/json' }, body: JSON.stringify({ formId: o.form.id, targetUrl }) });
      expect((await post('https://127.0.0.1:8443/in')).status).toBe(201);
      expect((await post('http://127.0.0.1:8080/in')).status).toBe(400);
    } finally {
      await local.close();
    }
  });

  it('the form must exist even for a valid target', async () => {
    const form = await createForm(t.services, owner.account.id);
    expect((await subscribe('https://hooks.example.com/a', form.id)).status).toBe(201);
    expect((await subscribe('https://hooks.example.com/a', 'frm_0000000000000000')).status).toBe(404);
  });
});
