import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { testDialect } from '../helpers/database.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
});
afterAll(async () => receiver?.close());

describe('DNS rebinding', () => {
  it('a name that turns private after subscription is not contacted', async () => {
    // The fake DNS answers like an attacker's: a public address when asked first, then loopback.
    const answers: Record<string, LookupAddress[]> = { 'hooks.rebind.example': [{ address: '93.184.215.14', family: 4 }] };
    const t = await buildTestApp({
      env: { HOOK_TIMEOUT_MS: '2000' },
      hookTransport: { ca: receiver.ca, resolve: async (name) => answers[name] ?? [] },
    });
    try {
      const owner = await createOwner(t.services, { planId: 'pro' });
      const port = new URL(receiver.url).port;
      const created = await t.fetch('/v1/api/hooks', {
        method: 'POST',
        headers: { ...owner.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ formId: owner.form.id, targetUrl: `https://hooks.rebind.example:${port}/in` }),
      });
      expect(created.status).toBe(201);
      const { hook } = (await created.json()) as { hook: { id: string } };
      answers['hooks.rebind.example'] = [{ address: '127.0.0.1', family: 4 }];
      const before = receiver.received.length;
      await submit(t, owner.form.id, { json: { a: 1 } });
      await waitFor(async () => (await t.services.hooks.listRecentDeliveries(owner.account.id, hook.id, 5))[0]?.state === 'failed', 15_000, 'the refused attempt');
      const [attempt] = await t.services.hooks.listRecentDeliveries(owner.account.id, hook.id, 5);
      expect(attempt!.error).toMatch(/refused/);
      expect(attempt!.responseStatus).toBeNull();
      expect(receiver.received.length).toBe(before);
    } finally {
      await t.close();
    }
  });

  it('an IP-literal target that is private at delivery is refused too', async () => {
    const t = await buildTestApp({ env: { HOOK_TIMEOUT_MS: '2000' }, hookTransport: { ca: receiver.ca } });
    try {
      const owner = await createOwner(t.services, { planId: 'pro' });
      // Written behind the API's back, as if the rules had been looser when it was created.
      await t.handle.db
        .insertInto('hooks')
        .values({ id: 'hook_legacy000000000', account_id: owner.account.id, form_id: owner.form.id, target_url: `${receiver.url}/in`, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', created_at: new Date().toISOString() })
        .execute();
      const before = receiver.received.length;
      await submit(t, owner.form.id, { json: { a: 1 } });
      await waitFor(async () => (await t.services.hooks.listRecentDeliveries(owner.account.id, 'hook_legacy000000000', 5))[0]?.state === 'failed', 15_000, 'the refused attempt');
      expect((await t.services.hooks.listRecentDeliveries(owner.account.id, 'hook_legacy000000000', 5))[0]!.error).toMatch(/refused/);
      expect(receiver.received.length).toBe(before);
    } finally {
      await t.close();
    }
  });
});

describe('outbox', () => {
  it('deliveries pending when the server starts are sent', async () => {
    const first = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
    const owner = await createOwner(first.services, { planId: 'pro' });
    const { hook } = await first.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/later` });
    // Stop the dispatcher first, as a crash would: what is queued now stays pending.
    await first.services.outbox.stop();
    const { submissionId } = (await (await submit(first, owner.form.id, { json: { a: 1 } })).json()) as { submissionId: string };
    // Queued as one outbox row in the submit transaction; no delivery exists yet.
    const queued = await first.handle.db.selectFrom('outbox').select('submission_id').execute();
    expect(queued).toEqual([{ submission_id: submissionId }]);
    expect(await first.services.outbox.countPending()).toBe(1);
    const second = await buildTestApp({ database: first.database, env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
    try {
      await waitFor(() => receiver.received.some((r) => r.headers['webhook-id'] === `${submissionId}.${hook.id}`), 15_000, 'the delivery');
      expect(await first.handle.db.selectFrom('outbox').select('submission_id').execute()).toEqual([]);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('a hook subscribed after a submission does not receive it, even while it waits in the outbox', async () => {
    const first = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
    const owner = await createOwner(first.services, { planId: 'pro' });
    const { hook: early } = await first.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/early` });
    await first.services.outbox.stop();
    const { submissionId } = (await (await submit(first, owner.form.id, { json: { a: 1 } })).json()) as { submissionId: string };
    // Timestamps have millisecond resolution: the late hook must be created strictly later.
    const { created_at: submittedAt } = await first.handle.db.selectFrom('submissions').select('created_at').where('id', '=', submissionId).executeTakeFirstOrThrow();
    await waitFor(() => new Date().toISOString() > submittedAt, 1000, 'a later millisecond');
    const { hook: late } = await first.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/late` });
    const second = await buildTestApp({ database: first.database, env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
    try {
      await waitFor(() => receiver.received.some((r) => r.headers['webhook-id'] === `${submissionId}.${early.id}`), 15_000, 'the early hook');
      const rows = await first.handle.db.selectFrom('hook_deliveries').select('hook_id').where('submission_id', '=', submissionId).execute();
      expect(rows).toEqual([{ hook_id: early.id }]);
      expect(receiver.received.some((r) => r.headers['webhook-id'] === `${submissionId}.${late.id}`)).toBe(false);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it(`two instances on one ${testDialect} database send 200 submissions exactly once each`, async () => {
    const a = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
    const b = await buildTestApp({ database: a.database, env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
    try {
      const owner = await createOwner(a.services, { planId: 'pro' });
      const { hook } = await a.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/fanout` });
      const mine = () => receiver.received.filter((r) => String(r.headers['webhook-id']).endsWith(`.${hook.id}`));
      const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => submit(i % 2 ? b : a, owner.form.id, { json: { i } })));
      expect(responses.every((r) => r.status === 200)).toBe(true);
      await waitFor(() => mine().length >= 200, 60_000, '200 deliveries');
      // Let both dispatchers run another cycle, then make sure nothing came twice.
      a.services.outbox.wake();
      b.services.outbox.wake();
      await waitFor(async () => {
        const rows = await a.handle.db.selectFrom('hook_deliveries').select('state').where('hook_id', '=', hook.id).execute();
        return rows.length === 200 && rows.every((r) => r.state === 'sent');
      }, 15_000, 'all attempts recorded');
      const ids = mine().map((r) => String(r.headers['webhook-id']));
      expect(ids).toHaveLength(200);
      expect(new Set(ids).size).toBe(200);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
