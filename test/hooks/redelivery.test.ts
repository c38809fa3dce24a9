import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

// A delivery sent again keeps its webhook-id and is sent once; after an
// outage, every failed delivery of a hook in a range is sent again.
let receiver: HttpsReceiver;
let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;
const env = { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '10000' };

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await buildTestApp({ env, hookTransport: { ca: receiver.ca } });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
beforeEach(async () => {
  owner = await createOwner(t.services, { planId: 'pro' });
  receiver.respond((_req, res) => res.writeHead(200).end('ok'));
});

async function subscribe(app: AppUnderTest, auth: { authorization: string }, formId: string): Promise<string> {
  const res = await app.fetch('/v1/api/hooks', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ formId, targetUrl: `${receiver.url}/in` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { hook: { id: string } }).hook.id;
}

const receivedFor = (hookId: string) => receiver.received.filter((r) => String(r.headers['webhook-id']).endsWith(`.${hookId}`));

async function deliveryStates(app: AppUnderTest, hookId: string) {
  // The last answer is the attempt log's row numbered as the delivery's attempts.
  return app.handle.db
    .selectFrom('hook_deliveries as d')
    .leftJoin('outbox_attempts as a', (join) => join.onRef('a.item_id', '=', 'd.id').onRef('a.attempt', '=', 'd.attempts'))
    .select(['d.id', 'd.state', 'd.attempts', 'a.status as response_status', 'a.attempted_at'])
    .where('d.hook_id', '=', hookId)
    .orderBy('d.created_at')
    .execute();
}

async function settledStates(app: AppUnderTest, hookId: string, count: number) {
  await waitFor(async () => {
    const rows = await deliveryStates(app, hookId);
    return rows.length === count && rows.every((r) => r.state === 'sent' || r.state === 'failed');
  }, 20_000, `${count} settled deliveries`);
  return deliveryStates(app, hookId);
}

function redeliver(app: AppUnderTest, auth: { authorization: string }, hookId: string, body: unknown) {
  return app.fetch(`/v1/api/hooks/${hookId}/redeliver`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('sending a hook delivery again', () => {
  it('one new attempt through the outbox, sent exactly once, with the same webhook-id', async () => {
    const hookId = await subscribe(t, owner.auth, owner.form.id);
    receiver.respond((_req, res) => res.writeHead(500).end('down'));
    expect((await submit(t, owner.form.id, { json: { name: 'Ada' } })).status).toBe(200);
    const [failed] = await settledStates(t, hookId, 1);
    expect(failed).toMatchObject({ state: 'failed', attempts: 1, response_status: 500 });
    // "once, no retries" stays the automatic behaviour: nothing more without the owner.
    t.services.outbox.wake();
    await t.services.outbox.settle();
    expect(receivedFor(hookId)).toHaveLength(1);

    receiver.respond((_req, res) => res.writeHead(204).end());
    expect(await t.services.hooks.sendDeliveryAgain(owner.account.id, failed!.id)).toBe(true);
    const [sentAgain] = await t.services.audit.listEvents(owner.account.id, { action: 'delivery.sent_again' });
    expect(sentAgain).toMatchObject({ target: { type: 'hook_delivery', id: failed!.id }, details: { channel: 'hook' } });
    await waitFor(async () => (await deliveryStates(t, hookId))[0]?.state === 'sent', 20_000, 'the delivery sent again');
    t.services.outbox.wake();
    await t.services.outbox.settle();
    const received = receivedFor(hookId);
    expect(received).toHaveLength(2);
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([failed!.id, failed!.id]);
    expect(received[1]!.body).toBe(received[0]!.body);
    expect((await deliveryStates(t, hookId))[0]).toMatchObject({ state: 'sent', attempts: 2, response_status: 204 });
    const [entry] = await t.services.hooks.listDeliveriesOfSubmission(owner.account.id, String(received[0]!.headers['webhook-id']).split('.')[0]!);
    expect(entry).toMatchObject({ channel: 'hook', state: 'sent', attempts: 2, lastStatus: 'HTTP 204', canSendAgain: true });
    // The first attempt's answer is kept beside the last one's.
    expect(entry!.earlierAttempts).toEqual([{ at: failed!.attempted_at, answer: 'HTTP 500' }]);
  });

  it("another account's delivery is not_found", async () => {
    const hookId = await subscribe(t, owner.auth, owner.form.id);
    await submit(t, owner.form.id, { json: { name: 'Ada' } });
    const [delivery] = await settledStates(t, hookId, 1);
    const other = await createOwner(t.services, { planId: 'pro' });
    await expect(t.services.hooks.sendDeliveryAgain(other.account.id, delivery!.id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await t.services.hooks.listDeliveriesOfSubmission(other.account.id, delivery!.id.split('.')[0]!)).toEqual([]);
  });
});

describe('POST /v1/api/hooks/:id/redeliver', () => {
  it('queues the failed deliveries in the range, and only those: 202 {queued}', async () => {
    const hookId = await subscribe(t, owner.auth, owner.form.id);
    const since = new Date(Date.now() - 1000).toISOString();
    receiver.respond((_req, res) => res.writeHead(503).end());
    for (let i = 0; i < 3; i++) expect((await submit(t, owner.form.id, { json: { i } })).status).toBe(200);
    const failed = await settledStates(t, hookId, 3);
    expect(failed.every((d) => d.state === 'failed')).toBe(true);
    receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    expect((await submit(t, owner.form.id, { json: { i: 3 } })).status).toBe(200);
    await settledStates(t, hookId, 4);
    // One failed delivery falls before the range.
    await t.handle.db.updateTable('hook_deliveries').set({ created_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', failed[0]!.id).execute();

    const res = await redeliver(t, owner.auth, hookId, { since });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ queued: 2 });
    await waitFor(async () => (await deliveryStates(t, hookId)).filter((d) => d.state === 'sent').length === 3, 20_000, 'two sent again');
    t.services.outbox.wake();
    await t.services.outbox.settle();
    const ids = receivedFor(hookId).map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(6);
    for (const d of failed.slice(1)) expect(ids.filter((id) => id === d.id)).toHaveLength(2);
    expect(ids.filter((id) => id === failed[0]!.id)).toHaveLength(1);
    // Nothing failed any more in the range.
    expect(await (await redeliver(t, owner.auth, hookId, { since, until: new Date().toISOString() })).json()).toEqual({ queued: 0 });
  });

  it('refuses a malformed or empty range with validation_failed', async () => {
    const hookId = await subscribe(t, owner.auth, owner.form.id);
    const bad = await redeliver(t, owner.auth, hookId, { since: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'validation_failed', fieldErrors: { since: expect.any(String) } });
    const backwards = await redeliver(t, owner.auth, hookId, { since: '2026-11-02T00:00:00.000Z', until: '2026-11-01T00:00:00.000Z' });
    expect(await backwards.json()).toMatchObject({ error: 'validation_failed', fieldErrors: { until: expect.any(String) } });
    expect((await redeliver(t, owner.auth, hookId, {})).status).toBe(400);
  });

  it("another account's key gets 404 not_found, and so does an unknown hook", async () => {
    const hookId = await subscribe(t, owner.auth, owner.form.id);
    const other = await createOwner(t.services, { planId: 'pro' });
    const res = await redeliver(t, other.auth, hookId, { since: '2026-01-01T00:00:00.000Z' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
    expect((await redeliver(t, owner.auth, 'hook_nope', { since: '2026-01-01T00:00:00.000Z' })).status).toBe(404);
  });

  it('queues at most 10,000 a call: beyond, validation_failed says so and queues nothing', async () => {
    // An instance whose dispatcher is stopped: what is queued stays queued, to be counted.
    const quiet = await buildTestApp({ env, hookTransport: { ca: receiver.ca } });
    try {
      await quiet.services.outbox.stop();
      const me = await createOwner(quiet.services, { planId: 'pro' });
      const hookId = await subscribe(quiet, me.auth, me.form.id);
      expect((await submit(quiet, me.form.id, { json: { name: 'Ada' } })).status).toBe(200);
      const submission = await quiet.handle.db.selectFrom('submissions').select('id').where('form_id', '=', me.form.id).executeTakeFirstOrThrow();
      const rows = Array.from({ length: 10_001 }, (_, i) => ({
        id: `${newId('dlv')}.${hookId}`,
        hook_id: hookId,
        submission_id: submission.id,
        state: 'failed',
        attempts: 1,
        created_at: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
      }));
      for (let i = 0; i < rows.length; i += 500) await quiet.handle.db.insertInto('hook_deliveries').values(rows.slice(i, i + 500)).execute();
      const pending = async () => (await quiet.handle.db.selectFrom('hook_deliveries').select('id').where('hook_id', '=', hookId).where('state', '=', 'pending').execute()).length;
      const before = await pending();

      const over = await redeliver(quiet, me.auth, hookId, { since: '2026-11-01T00:00:00.000Z', until: '2026-12-01T00:00:00.000Z' });
      expect(over.status).toBe(400);
      const body = (await over.json()) as { error: string; message: string };
      expect(body.error).toBe('validation_failed');
      expect(body.message).toMatch(/10,000/);
      expect(await pending()).toBe(before);

      // The same range less its last second: exactly 10,000.
      const at = await redeliver(quiet, me.auth, hookId, { since: '2026-11-01T00:00:00.000Z', until: rows[10_000]!.created_at });
      expect(at.status).toBe(202);
      expect(await at.json()).toEqual({ queued: 10_000 });
      expect(await pending()).toBe(before + 10_000);
    } finally {
      await quiet.close();
    }
  });
});

describe('leases across two instances on one database', () => {
  it('an expired claim is taken back and sent once; a live one, renewed, is never taken', async () => {
    const leaseMs = 1500;
    const a = await buildTestApp({ env: { ...env, OUTBOX_LEASE_MS: String(leaseMs) }, hookTransport: { ca: receiver.ca } });
    const b = await buildTestApp({ database: a.database, env: { ...env, OUTBOX_LEASE_MS: String(leaseMs) }, hookTransport: { ca: receiver.ca } });
    try {
      const me = await createOwner(a.services, { planId: 'pro' });
      const hookId = await subscribe(a, me.auth, me.form.id);
      // A slow receiver: each answer takes three leases, so the claim must be renewed meanwhile.
      receiver.respond((_req, res) => setTimeout(() => res.writeHead(200).end('ok'), 3 * leaseMs));
      expect((await submit(b, me.form.id, { json: { slow: true } })).status).toBe(200);
      const [live] = await settledStates(a, hookId, 1);
      expect(receivedFor(hookId).map((r) => r.headers['webhook-id'])).toEqual([live!.id]);

      // A claim of a process that died an hour ago, in the middle of sending.
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
      const [submission] = await a.handle.db.selectFrom('submissions').select('id').where('form_id', '=', me.form.id).execute();
      const abandoned = `${newId('sub')}.${hookId}`;
      await a.handle.db
        .insertInto('hook_deliveries')
        .values({ id: abandoned, hook_id: hookId, submission_id: submission!.id, state: 'sending', claimed_at: new Date(Date.now() - 3_600_000).toISOString(), claimed_by: 'dead', created_at: new Date().toISOString() })
        .execute();
      // Both instances' lease checks run on their own timers (a third of the lease).
      await waitFor(async () => (await deliveryStates(a, hookId)).every((d) => d.state === 'sent'), 20_000, 'the abandoned delivery sent');
      await Promise.all([a.services.outbox.settle(), b.services.outbox.settle()]);
      const ids = receivedFor(hookId).map((r) => String(r.headers['webhook-id']));
      expect(ids.filter((id) => id === live!.id)).toHaveLength(1);
      expect(ids.filter((id) => id === abandoned)).toHaveLength(1);
      expect((await deliveryStates(a, hookId)).map((d) => d.attempts)).toEqual([1, 1]);
    } finally {
      await b.close();
      await a.close();
    }
  }, 60_000);
});
