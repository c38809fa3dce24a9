import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliverySender, HookDeliveryChannel } from '../../src/features/hooks/delivery.channel.js';
import { OutboxDispatcher } from '../../src/features/outbox/outbox.dispatcher.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import type { DedicatedConnection } from '../../src/platform/db/dedicated-connection.js';
import { waitFor } from '../helpers/wait.js';

let receiver: HttpsReceiver;
let t: AppUnderTest;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  receiver = await startHttpsReceiver();
  receiver.respond((_req, res) => res.writeHead(200).end('ok'));
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000' }, hookTransport: { ca: receiver.ca } });
  // The app's own dispatcher is stopped: each test drives one of its own.
  await t.services.outbox.stop();
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await t?.close();
  await receiver?.close();
});

const newDispatcher = () => {
  const logger = pino({ level: 'silent' });
  return new OutboxDispatcher(t.handle, logger, [new HookDeliveryChannel(t.handle, logger, new DeliverySender(t.config.hookTimeoutMs, t.config.hookAllowPrivateTargets, { ca: receiver.ca }))]);
};

// PostgreSQL only: the LISTEN connection and the pool exist only there.
describe('outbox dispatcher under faults', () => {
  it('a stored payload that does not parse is recorded as a failed delivery, never an unhandled rejection', async () => {
    const owner = await createOwner(t.services, { planId: 'pro' });
    const created = await t.fetch('/v1/api/hooks', {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ formId: owner.form.id, targetUrl: `${receiver.url}/in` }),
    });
    const { hook } = (await created.json()) as { hook: { id: string } };
    const res = await submit(t, owner.form.id, { json: { a: 1 } }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    await t.handle.db.updateTable('submissions').set({ payload: '{broken' }).where('id', '=', submissionId).execute();

    const dispatcher = newDispatcher();
    dispatcher.start();
    try {
      await waitFor(async () => (await t.services.hooks.listRecentDeliveries(owner.account.id, hook.id, 5)).some((a) => a.state === 'failed'), 10_000, 'the failed attempt');
      const [attempt] = await t.services.hooks.listRecentDeliveries(owner.account.id, hook.id, 5);
      // No request was made: no status, no duration.
      expect(attempt).toMatchObject({ state: 'failed', submissionId, responseStatus: null, durationMs: null, error: expect.stringContaining('JSON') });
      expect(receiver.received.filter((r) => String(r.headers['webhook-id']).endsWith(`.${hook.id}`))).toHaveLength(0);
    } finally {
      await dispatcher.stop();
    }
    expect(unhandled).toEqual([]);
  });

  it('releases its connections on every path: LISTEN connection killed, then stopped', async () => {
    const dispatcher = newDispatcher();
    dispatcher.start();
    const pool = t.handle.pgPool!;
    // The LISTEN connection's backend is terminated; the dispatcher listens again on a new one.
    const listenerPid = async (): Promise<number | undefined> => {
      const listener = (dispatcher as unknown as { listener?: { connection?: DedicatedConnection } }).listener?.connection;
      if (!listener?.held) return undefined;
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(listener.db).catch(() => ({ rows: [] }));
      return rows[0]?.pid;
    };
    await waitFor(async () => (await listenerPid()) !== undefined, 5000, 'the LISTEN connection');
    const first = (await listenerPid())!;
    await t.handle.db.selectNoFrom((eb) => eb.fn<boolean>('pg_terminate_backend', [eb.val(first)]).as('t')).execute();
    await waitFor(async () => {
      const pid = await listenerPid();
      return pid !== undefined && pid !== first;
    }, 10_000, 'a new LISTEN connection');
    await dispatcher.stop();
    // Nothing is left checked out of the pool.
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect(unhandled).toEqual([]);
  });
});
