import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Trx } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { OutboxChannel } from '../../src/outbox/outbox.channel.js';
import { OutboxDispatcher } from '../../src/outbox/outbox.dispatcher.js';
import { runRoundSteps, type RoundPlan } from '../../src/outbox/outbox.round.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createOwner, insertSubmissions, servicesFor } from '../helpers/factories.js';

let database: TestDatabase;
let handle: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

/** A channel that makes one item of each submission it expands and notes each claim's transaction. */
function countingChannel(name: string, claims: Array<{ channel: string; trx: Trx }>): OutboxChannel {
  let due = 0;
  return {
    name,
    maxInFlight: 8,
    formHasWorkSql: () => 'true',
    expand: async (_trx, ids) => {
      due += ids.length;
      return ids.length;
    },
    claim: async (trx, limit) => {
      claims.push({ channel: name, trx });
      const taken = Math.min(limit, due);
      due -= taken;
      return Array.from({ length: taken }, () => async () => {});
    },
    countPending: async () => due,
    close: async () => {},
  };
}

/** Queues the submissions on the outbox as the submit path does (a dispatcher that is never started). */
async function queueSubmissions(channels: OutboxChannel[], ids: string[]): Promise<void> {
  const queue = new OutboxDispatcher(handle, pino({ level: 'silent' }), channels);
  expect(await handle.db.transaction().execute((trx) => queue.queueInTransaction(trx, ids))).toBe(ids.length);
}

describe('a round of the outbox', () => {
  it('claims each channel at most once: one that claimed before the expansion gave it items claims them in the next round', async () => {
    const services = servicesFor(handle);
    const { form } = await createOwner(services);
    const ids = await insertSubmissions(services, form.id, [{ createdAt: new Date().toISOString() }, { createdAt: new Date().toISOString() }]);
    const claims: Array<{ channel: string; trx: Trx }> = [];
    const woken = countingChannel('woken', claims);
    const idle = countingChannel('idle', claims);
    await queueSubmissions([woken, idle], ids);
    const plan: RoundPlan = {
      channels: [woken, idle],
      idle: new Set(['idle']),
      ready: new Set(['woken', 'idle']),
      freeSlots: () => 8,
      expandBatch: 32,
      dialect: handle.dialect,
    };
    const outcome = await handle.db.transaction().execute((trx) => runRoundSteps((_what, step) => step(trx), plan));
    expect(outcome.expanded).toBe(2);
    expect(outcome.madeWork).toEqual(['woken', 'idle']);
    // `woken` claimed before the expansion (nothing was due) and not again; `idle` claimed after it.
    expect(claims.map((c) => c.channel)).toEqual(['woken', 'idle']);
    expect(claims[0]!.trx).toBe(claims[1]!.trx);
    expect(outcome.sends.map((s) => [s.channel.name, s.sends.length])).toEqual([['idle', 2]]);
    expect(Object.fromEntries(outcome.drained)).toEqual({ woken: false, idle: true });
    expect(outcome.claimAgain).toBe(true);
    expect(outcome.full).toBe(false);
  });

  it('does not expand while a channel is full, and gives a channel that is not ready to claim nothing', async () => {
    const services = servicesFor(handle);
    const { form } = await createOwner(services);
    const ids = await insertSubmissions(services, form.id, [{ createdAt: new Date().toISOString() }]);
    const claims: Array<{ channel: string; trx: Trx }> = [];
    const busy = countingChannel('busy', claims);
    const locked = countingChannel('locked', claims);
    await queueSubmissions([busy, locked], ids);
    const plan: RoundPlan = {
      channels: [busy, locked],
      idle: new Set(),
      ready: new Set(['busy']),
      freeSlots: (channel) => (channel.name === 'busy' ? 1 : 8),
      expandBatch: 32,
      dialect: handle.dialect,
    };
    const full = await handle.db.transaction().execute((trx) => runRoundSteps((_what, step) => step(trx), plan));
    expect(full).toMatchObject({ full: true, expanded: 0, claimAgain: false });
    expect(claims).toEqual([]);
    const room = await handle.db.transaction().execute((trx) => runRoundSteps((_what, step) => step(trx), { ...plan, freeSlots: () => 8 }));
    expect(room.expanded).toBe(1);
    // `busy` claimed once, before the expansion; `locked` is not ready: no claim, counted as drained.
    expect(claims.map((c) => c.channel)).toEqual(['busy']);
    expect(Object.fromEntries(room.drained)).toEqual({ busy: false, locked: true });
    expect(room.claimAgain).toBe(true);
  });
});
