import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signDelivery } from '../../src/features/hooks/delivery.channel.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let receiver: HttpsReceiver;
let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await buildTestApp({
    env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000' },
    hookTransport: { ca: receiver.ca },
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
beforeEach(async () => {
  owner = await createOwner(t.services, { planId: 'pro' });
  receiver.respond((_req, res) => res.writeHead(200).end('ok'));
});

async function subscribe(path = '/in'): Promise<{ id: string; secret: string }> {
  const res = await t.fetch('/v1/api/hooks', {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ formId: owner.form.id, targetUrl: `${receiver.url}${path}` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { hook: { id: string; secret: string } }).hook;
}

async function attempts(hookId: string) {
  return t.services.hooks.listRecentDeliveries(owner.account.id, hookId, 50);
}

async function settled(hookId: string, count: number) {
  await waitFor(async () => (await attempts(hookId)).filter((a) => a.state === 'sent' || a.state === 'failed').length >= count, 15_000, `${count} recorded attempts`);
  return attempts(hookId);
}

const receivedFor = (hookId: string) => receiver.received.filter((r) => String(r.headers['webhook-id']).endsWith(`.${hookId}`));

describe('hook delivery', () => {
  it('POSTs each new submission once, with the flat body and a verifiable Standard Webhooks signature', async () => {
    const hook = await subscribe();
    const res = await submit(t, owner.form.id, { json: { name: 'Ada', tags: ['x', 'y'], access_key: 'ignored' } }, { 'user-agent': 'UA/2', referer: 'https://site.example/' });
    const { submissionId } = (await res.json()) as { submissionId: string };
    const [attempt] = await settled(hook.id, 1);
    expect(attempt).toMatchObject({ state: 'sent', responseStatus: 200, error: null, submissionId });
    expect(attempt!.durationMs).toEqual(expect.any(Number));

    const [delivery] = receivedFor(hook.id);
    expect(receivedFor(hook.id)).toHaveLength(1);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['webhook-id']).toBe(`${submissionId}.${hook.id}`);
    const body = JSON.parse(delivery!.body);
    expect(body).toEqual({
      id: submissionId,
      form_id: owner.form.id,
      created_at: expect.stringMatching(/\.\d{3}Z$/),
      ip: '127.0.0.1',
      country: 'XX',
      user_agent: 'UA/2',
      referer: 'https://site.example/',
      fields: { name: 'Ada', tags: ['x', 'y'] },
    });
    const headers = Object.fromEntries(Object.entries(delivery!.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(hook.secret).verify(delivery!.body, headers)).toEqual(body);
    expect(() => new Webhook(`whsec_${Buffer.from('another secret, 32 bytes long!!').toString('base64')}`).verify(delivery!.body, headers)).toThrow();
  });

  it('a running dispatcher takes over a claim a dead process abandoned (it looks for them every few seconds, not in every claim)', async () => {
    const hook = await subscribe();
    const res = await submit(t, owner.form.id, { json: { name: 'Grace' } });
    const { submissionId } = (await res.json()) as { submissionId: string };
    await settled(hook.id, 1);
    // As a process that died mid-send leaves it: claimed long ago, never finished.
    await t.handle.db
      .updateTable('hook_deliveries')
      .set({ state: 'sending', claimed_at: '2026-01-01T00:00:00.000Z' })
      .where('id', '=', `${submissionId}.${hook.id}`)
      .execute();
    await waitFor(() => receivedFor(hook.id).length === 2, 15_000, 'the abandoned delivery sent again');
    const [attempt] = await settled(hook.id, 1);
    expect(attempt).toMatchObject({ state: 'sent', submissionId });
    expect(receivedFor(hook.id).map((r) => r.headers['webhook-id'])).toEqual([`${submissionId}.${hook.id}`, `${submissionId}.${hook.id}`]);
  });

  it('sends nothing for spam', async () => {
    const hook = await subscribe();
    // The spam submission really is accepted and stored as spam (else the test proves nothing)…
    const spamRes = await submit(t, owner.form.id, { json: { _honey: 'bot' } }, JSON_ACCEPT);
    expect(spamRes.status).toBe(200);
    const spam = (await spamRes.json()) as { submissionId: string; filtered?: string };
    expect(spam.filtered).toBe('spam');
    expect((await t.services.submissionQueries.getSubmission(owner.account.id, spam.submissionId)).isSpam).toBe(true);
    // …and never enters the outbox: written in the submit transaction, so this is final.
    const outboxed = async (table: 'outbox' | 'hook_deliveries') =>
      (await t.handle.db.selectFrom(table).select('submission_id').where('submission_id', '=', spam.submissionId).execute()).length;
    expect(await outboxed('outbox')).toBe(0);
    const { submissionId } = (await (await submit(t, owner.form.id, { json: { n: 2 } })).json()) as { submissionId: string };
    const recorded = await settled(hook.id, 1);
    expect(recorded.map((a) => a.submissionId)).toEqual([submissionId]);
    expect(await outboxed('hook_deliveries')).toBe(0);
    expect(receivedFor(hook.id).map((r) => r.headers['webhook-id'])).toEqual([`${submissionId}.${hook.id}`]);
  });

  it('sends nothing after DELETE', async () => {
    const hook = await subscribe();
    expect((await t.fetch(`/v1/api/hooks/${hook.id}`, { method: 'DELETE', headers: owner.auth })).status).toBe(204);
    const control = await subscribe('/control');
    await submit(t, owner.form.id, { json: { a: 1 } });
    await settled(control.id, 1);
    expect(receivedFor(hook.id)).toHaveLength(0);
  });

  it('a 410 Gone answer removes the subscription', async () => {
    receiver.respond((_req, res) => res.writeHead(410).end());
    const hook = await subscribe('/gone');
    await submit(t, owner.form.id, { json: { a: 1 } });
    await waitFor(async () => (await t.services.hooks.listHooks(owner.account.id)).length === 0, 15_000, 'the hook to be removed');
    expect(receivedFor(hook.id)).toHaveLength(1);
  });

  it('a 500 answer is recorded and never retried', async () => {
    receiver.respond((_req, res) => res.writeHead(500).end('boom'));
    const hook = await subscribe('/broken');
    await submit(t, owner.form.id, { json: { a: 1 } });
    const [attempt] = await settled(hook.id, 1);
    expect(attempt).toMatchObject({ state: 'failed', responseStatus: 500 });
    // Another dispatch cycle (a later submission wakes it) does not send it again.
    receiver.respond((_req, res) => res.writeHead(200).end());
    await submit(t, owner.form.id, { json: { b: 2 } });
    await settled(hook.id, 2);
    expect(receivedFor(hook.id)).toHaveLength(2);
    expect(new Set(receivedFor(hook.id).map((r) => r.headers['webhook-id'])).size).toBe(2);
  });

  it('does not follow a redirect, not even to a reachable address', async () => {
    receiver.respond((req, res) => {
      if (req.url === '/hop') res.writeHead(302, { location: `${receiver.url}/internal` }).end();
      else res.writeHead(200).end();
    });
    const hook = await subscribe('/hop');
    await submit(t, owner.form.id, { json: { a: 1 } });
    const [attempt] = await settled(hook.id, 1);
    expect(attempt).toMatchObject({ state: 'failed', responseStatus: 302 });
    expect(receiver.received.some((r) => r.headers['webhook-id'] && String(r.headers['webhook-id']).endsWith(hook.id) && r.body === '')).toBe(false);
    expect(receivedFor(hook.id)).toHaveLength(1);
  });

  it('reads at most 64 KiB of a 10 MB answer and hangs up', async () => {
    let written = 0;
    let closedEarly = false;
    receiver.respond((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (written < 10 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (closedEarly = written < 10 * 1024 * 1024 || !res.writableFinished));
      pump();
    });
    const hook = await subscribe('/stream');
    await submit(t, owner.form.id, { json: { a: 1 } });
    const [attempt] = await settled(hook.id, 1);
    expect(attempt).toMatchObject({ state: 'sent', responseStatus: 200 });
    await waitFor(() => closedEarly, 5000, 'the connection to be dropped');
    expect(written).toBeLessThan(10 * 1024 * 1024);
  });

  it('a slow receiver does not slow down submissions', async () => {
    const held: Array<() => void> = [];
    receiver.respond((_req, res) => {
      const timer = setTimeout(() => res.writeHead(200).end(), 5000);
      held.push(() => {
        clearTimeout(timer);
        res.writeHead(200).end();
      });
    });
    const median = async (n: number) => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        expect((await submit(t, owner.form.id, { json: { i } })).status).toBe(200);
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
    };
    const without = await median(20);
    await subscribe('/slow');
    const withSlowHook = await median(20);
    expect(held.length).toBeGreaterThan(0); // deliveries really were in flight meanwhile
    // The receiver holds each delivery 5 s: a submit that waited for one would take that long. The
    // bound leaves room for a busy machine (parallel test files) without coming near the hold.
    expect(withSlowHook).toBeLessThan(Math.max(3 * without, 100));
    for (const release of held) release();
  });
});

describe('signatures', () => {
  it('match the Standard Webhooks known-answer vector', () => {
    expect(
      signDelivery('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), '{"test": 2432232314}'),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verify with the reference library for any secret and body, non-ASCII text included', () => {
    const at = new Date();
    for (const [i, body] of ['{}', '{"name":"Zoë","city":"Kraków","emoji":"🦊"}', JSON.stringify({ long: 'x'.repeat(70_000) })].entries()) {
      const secret = `whsec_${Buffer.from(`secret number ${i}, 32 bytes long!`).toString('base64')}`;
      const id = `sub_${i}.hk_${i}`;
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signDelivery(secret, id, at, body) };
      expect(new Webhook(secret).verify(body, headers)).toBeDefined();
      expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    }
  });
});
