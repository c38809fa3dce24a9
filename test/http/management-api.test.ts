import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner, insertSubmissions, setCreatedAt } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services, { planId: 'business' });
});
afterAll(async () => t?.close());

const get = (path: string, headers: Record<string, string> = owner.auth) => t.fetch(`/v1/api${path}`, { headers });
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('management API: happy paths', () => {
  it('GET /me returns the key owner', async () => {
    const res = await get('/me');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      user: { id: owner.account.id, email: owner.account.email, displayName: 'Test User', planId: 'business' },
    });
  });

  it('GET /forms lists the forms newest first with the specified fields', async () => {
    const newer = await createForm(t.services, owner.account.id, { name: 'Newer', isActive: false });
    // Fixed times: both may well have been created in one millisecond.
    await setCreatedAt(t.services, 'forms', owner.form.id, '2026-06-01T00:00:00.000Z');
    await setCreatedAt(t.services, 'forms', newer.id, '2026-06-01T00:00:00.001Z');
    const res = await get('/forms');
    const { forms } = await res.json();
    expect(forms.map((f: { id: string }) => f.id)).toEqual([newer.id, owner.form.id]);
    expect(forms[0]).toEqual({ id: newer.id, name: 'Newer', isActive: 0, createdAt: expect.stringMatching(ISO_MS), sealed: null });
    expect(forms[1].isActive).toBe(1);
  });

  it('GET /submissions/:id returns {submission} without control fields', async () => {
    const posted = await submit(t, owner.form.id, { json: { name: 'Ada', _honey: '', tags: ['x', 'y'], n: 2, __proto__x: 1 } });
    const { submissionId } = await posted.json();
    const res = await get(`/submissions/${submissionId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      submission: {
        id: submissionId,
        createdAt: expect.stringMatching(ISO_MS),
        status: 'delivered',
        isSpam: 0,
        spamReason: null,
        country: 'XX',
        payload: { name: 'Ada', tags: ['x', 'y'], n: 2, __proto__x: 1 },
        triage: { read: false, state: 'open', assignee: null, tags: [] },
      },
    });
  });

  it('serializes prototype-named fields as data', async () => {
    const posted = await submit(t, owner.form.id, { raw: '{"__proto__":"p","constructor":"c"}', contentType: 'application/json' });
    const { submissionId } = await posted.json();
    const text = await (await get(`/submissions/${submissionId}`)).text();
    expect(text).toContain('"payload":{"__proto__":"p","constructor":"c"}');
  });

  it('GET /forms/:id/submissions pages newest first; spam is listed with isSpam 1', async () => {
    const form = await createForm(t.services, owner.account.id);
    const ids = await insertSubmissions(t.services, form.id, [
      { createdAt: '2026-01-01T00:00:00.001Z' },
      { createdAt: '2026-01-01T00:00:00.002Z', isSpam: true },
      { createdAt: '2026-01-01T00:00:00.003Z', payload: { a: 1 } },
    ]);
    const res = await get(`/forms/${form.id}/submissions?limit=2`);
    const page = await res.json();
    expect(page.submissions.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    expect(page.submissions[1].isSpam).toBe(1);
    expect(page.nextCursor).toEqual(expect.any(String));
    const last = await (await get(`/forms/${form.id}/submissions?limit=2&cursor=${page.nextCursor}`)).json();
    expect(last).toEqual({ submissions: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    const all = await (await get(`/forms/${form.id}/submissions`)).json();
    expect(all.submissions).toHaveLength(3);
    expect(all.nextCursor).toBeNull();
  });
});

describe('management API: errors', () => {
  it.each(['0', '101', '-1', 'abc', '1.5', '', '1e2x'])('limit=%s → validation_failed naming limit', async (limit) => {
    const res = await get(`/forms/${owner.form.id}/submissions?limit=${limit}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toEqual({ error: 'validation_failed', message: expect.any(String), fieldErrors: { limit: expect.any(String) } });
  });

  it.each(['nope!', 'bm90IGpzb24', Buffer.from('["2026-01-01T00:00:00.000Z",1]').toString('base64url'), ''])(
    'cursor=%s → validation_failed naming cursor',
    async (cursor) => {
      const res = await get(`/forms/${owner.form.id}/submissions?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(400);
      expect((await res.json()).fieldErrors).toEqual({ cursor: expect.any(String) });
    },
  );

  it('unknown IDs and unknown routes → 404 not_found', async () => {
    for (const path of ['/forms/frm_0000000000000000/submissions', '/submissions/sub_0000000000000000', '/nope']) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe('not_found');
    }
  });
});

describe('management API: security', () => {
  it('another account sees 404 for the owner\'s form and submission, exactly like missing ones', async () => {
    const other = await createOwner(t.services);
    const [id] = await insertSubmissions(t.services, owner.form.id, [{ createdAt: '2026-02-01T00:00:00.000Z' }]);
    for (const path of [`/forms/${owner.form.id}/submissions`, `/submissions/${id}`]) {
      const res = await get(path, other.auth);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'not_found', message: expect.any(String) });
    }
  });

  it('a revoked key is refused on the very next request', async () => {
    const { key, apiKey } = await t.services.apiKeys.createApiKey(owner.account.id, 'short-lived');
    expect((await get('/me', { authorization: `Bearer ${apiKey}` })).status).toBe(200);
    await t.services.apiKeys.revokeApiKey(key.id);
    const res = await get('/me', { authorization: `Bearer ${apiKey}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('records when a key was last used without writing on every request', async () => {
    const { key, apiKey } = await t.services.apiKeys.createApiKey(owner.account.id, 'tracked');
    expect((await t.services.apiKeys.listApiKeys(owner.account.id)).find((k) => k.id === key.id)!.lastUsedAt).toBeNull();
    await get('/me', { authorization: `Bearer ${apiKey}` });
    const first = (await t.services.apiKeys.listApiKeys(owner.account.id)).find((k) => k.id === key.id)!.lastUsedAt;
    expect(first).toMatch(ISO_MS);
    // Within the same minute a second request does not write again.
    await t.handle.db.updateTable('api_keys').set({ last_used_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', key.id).execute();
    await get('/me', { authorization: `Bearer ${apiKey}` });
    expect((await t.services.apiKeys.listApiKeys(owner.account.id)).find((k) => k.id === key.id)!.lastUsedAt).toBe('2000-01-01T00:00:00.000Z');
  });
});
