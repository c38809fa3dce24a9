import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle, Trx } from '../../src/db/database.js';
import type { OutboxChannel } from '../../src/outbox/outbox.channel.js';
import { OutboxDispatcher } from '../../src/outbox/outbox.dispatcher.js';
import { runRoundSteps, type RoundPlan } from '../../src/outbox/outbox.round.js';
import type { Services } from '../../src/services.js';
import { createOwner, insertSubmissions, useMigratedDatabase } from '../helpers/factories.js';

let handle: DatabaseHandle;
let services: Services;
useMigratedDatabase((opened) => ({ handle, services } = opened));

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

/** `count` new submissions of a new form, queued on the outbox as the submit path does (by a dispatcher never started). */
async function queueNewSubmissions(count: number, channels: OutboxChannel[]): Promise<void> {
  const { form } = await createOwner(services);
  const ids = await insertSubmissions(services, form.id, Array.from({ length: count }, () => ({ createdAt: new Date().toISOString() })));
  const queue = new OutboxDispatcher(handle, pino({ level: 'silent' }), channels);
  expect(await handle.db.transaction().execute((trx) => queue.queue.queue(trx, ids))).toBe(count);
}

/** A round over `channels` in one transaction, as the dispatcher runs it on PostgreSQL; 8 free slots each, unless `plan` says otherwise. */
function runRound(channels: OutboxChannel[], plan: Partial<RoundPlan> = {}) {
  const whole: RoundPlan = {
    channels,
    idle: new Set(),
    lease: { instance: '1' },
    freeSlots: () => 8,
    expandBatch: 32,
    dialect: handle.dialect,
    ...plan,
  };
  return handle.db.transaction().execute((trx) => runRoundSteps((_what, step) => step(trx), whole));
}

describe('a round of the outbox', () => {
  it('claims each channel at most once: one that claimed before the expansion gave it items claims them in the next round', async () => {
    const claims: Array<{ channel: string; trx: Trx }> = [];
    const woken = countingChannel('woken', claims);
    const idle = countingChannel('idle', claims);
    await queueNewSubmissions(2, [woken, idle]);
    const outcome = await runRound([woken, idle], { idle: new Set(['idle']) });
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

  it('does not expand while a channel is full; a channel with room claims once, before the expansion', async () => {
    const claims: Array<{ channel: string; trx: Trx }> = [];
    const busy = countingChannel('busy', claims);
    const other = countingChannel('other', claims);
    await queueNewSubmissions(1, [busy, other]);
    const full = await runRound([busy, other], { idle: new Set(['other']), freeSlots: (channel) => (channel.name === 'busy' ? 1 : 8) });
    expect(full).toMatchObject({ full: true, expanded: 0, claimAgain: false });
    expect(claims).toEqual([]);
    const room = await runRound([busy, other], { idle: new Set(['other']) });
    expect(room.expanded).toBe(1);
    // `busy` claimed once, before the expansion, and is asked again next round; `other` claimed its item after it.
    expect(claims.map((c) => c.channel)).toEqual(['busy', 'other']);
    expect(Object.fromEntries(room.drained)).toEqual({ busy: false, other: true });
    expect(room.claimAgain).toBe(true);
  });
});
