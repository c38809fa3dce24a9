import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, countStored, submit } from '../helpers/submit.js';
import { isoMinus, nowIso } from '../../src/platform/lib/time.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services);
});
afterAll(async () => t?.close());

describe('Idempotency-Key', () => {
  it('a repeat returns the original submissionId with cached: true and stores nothing new', async () => {
    const form = await createForm(t.services, owner.account.id);
    const first = await (await submit(t, form.id, { json: { a: 1 } }, { 'idempotency-key': 'order-1' })).json();
    expect(first).toEqual({ ok: true, submissionId: expect.any(String) });
    const again = await (await submit(t, form.id, { json: { a: 2 } }, { 'idempotency-key': 'order-1' })).json();
    expect(again).toEqual({ ok: true, submissionId: first.submissionId, cached: true });
    expect(await countStored(t, form.id)).toBe(1);
  });

  it('is scoped to the form', async () => {
    const a = await createForm(t.services, owner.account.id);
    const b = await createForm(t.services, owner.account.id);
    const ra = await (await submit(t, a.id, { json: { x: 1 } }, { 'idempotency-key': 'same' })).json();
    const rb = await (await submit(t, b.id, { json: { x: 1 } }, { 'idempotency-key': 'same' })).json();
    expect(rb.submissionId).not.toBe(ra.submissionId);
    expect(rb.cached).toBeUndefined();
  });

  it('replays spam as spam, and a redirect as the same redirect', async () => {
    const form = await createForm(t.services, owner.account.id, { successUrl: 'https://site.example/ok', allowedRedirectHosts: ['other.example'] });
    const spam = await (await submit(t, form.id, { json: { _honey: 'x' } }, { ...JSON_ACCEPT, 'idempotency-key': 'spam-1' })).json();
    const spamAgain = await (await submit(t, form.id, { json: {} }, { ...JSON_ACCEPT, 'idempotency-key': 'spam-1' })).json();
    expect(spamAgain).toEqual({ ok: true, submissionId: spam.submissionId, filtered: 'spam', cached: true });

    const first = await submit(t, form.id, { form: { message: 'hi', redirect: 'https://other.example/next' } }, { ...BROWSER_ACCEPT, 'idempotency-key': 'r-1' });
    expect(first.headers.get('location')).toBe('https://other.example/next');
    const again = await submit(t, form.id, { form: {} }, { ...BROWSER_ACCEPT, 'idempotency-key': 'r-1' });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('https://other.example/next');
  });

  it('does not cache errors', async () => {
    const form = await createForm(t.services, owner.account.id, { accessKey: 'k' });
    const denied = await submit(t, form.id, { json: { a: 1 } }, { 'idempotency-key': 'err-1' });
    expect(denied.status).toBe(403);
    const ok = await submit(t, form.id, { json: { a: 1, access_key: 'k' } }, { 'idempotency-key': 'err-1' });
    expect(ok.status).toBe(200);
    expect((await ok.json()).cached).toBeUndefined();
  });

  it('refuses keys over 255 characters or with non-printable characters', async () => {
    const long = await submit(t, owner.form.id, { json: { a: 1 } }, { 'idempotency-key': 'k'.repeat(256) });
    expect(long.status).toBe(400);
    expect((await long.json()).fieldErrors).toEqual({ 'Idempotency-Key': expect.any(String) });
    const okay = await submit(t, owner.form.id, { json: { a: 1 } }, { 'idempotency-key': 'k'.repeat(255) });
    expect(okay.status).toBe(200);
  });

  it('20 simultaneous requests with one key store exactly one submission, all answered with its ID', async () => {
    const form = await createForm(t.services, owner.account.id);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => submit(t, form.id, { json: { i } }, { 'idempotency-key': 'burst' })),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = new Set(bodies.map((b) => b.submissionId));
    expect(ids.size).toBe(1);
    expect(bodies.filter((b) => !b.cached)).toHaveLength(1);
    expect(await countStored(t, form.id)).toBe(1);
  });

  it('forgets keys after 24 hours and purges expired records', async () => {
    const form = await createForm(t.services, owner.account.id);
    const first = await (await submit(t, form.id, { json: { a: 1 } }, { 'idempotency-key': 'old' })).json();
    // Age the record past the window, as if a day had passed.
    await t.handle.db
      .updateTable('idempotency_keys')
      .set({ created_at: isoMinus(nowIso(), 24 * 60 * 60 * 1000 + 1000) })
      .where('form_id', '=', form.id)
      .execute();
    const later = await (await submit(t, form.id, { json: { a: 1 } }, { 'idempotency-key': 'old' })).json();
    expect(later.submissionId).not.toBe(first.submissionId);
    expect(later.cached).toBeUndefined();

    await submit(t, form.id, { json: { a: 1 } }, { 'idempotency-key': 'to-expire' });
    await t.handle.db
      .updateTable('idempotency_keys')
      .set({ created_at: isoMinus(nowIso(), 25 * 60 * 60 * 1000) })
      .where('idempotency_key', '=', 'to-expire')
      .execute();
    expect(await t.services.submissions.purgeExpiredIdempotencyKeys()).toBeGreaterThanOrEqual(1);
    const left = await t.handle.db.selectFrom('idempotency_keys').select('idempotency_key').where('form_id', '=', form.id).execute();
    expect(left.map((r) => r.idempotency_key)).toEqual(['old']);
  });
});

describe('Idempotency-Key across two instances on one database', () => {
  it('concurrent duplicates on two servers still create one submission', async () => {
    const second = await buildTestApp({ database: t.database });
    try {
      const form = await createForm(t.services, owner.account.id);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => submit(i % 2 ? second : t, form.id, { json: { i } }, { 'idempotency-key': 'cross' })),
      );
      const bodies = await Promise.all(responses.map((r) => r.json()));
      expect(responses.every((r) => r.status === 200)).toBe(true);
      expect(new Set(bodies.map((b) => b.submissionId)).size).toBe(1);
      expect(await countStored(t, form.id)).toBe(1);
    } finally {
      await second.close();
    }
  });
});
