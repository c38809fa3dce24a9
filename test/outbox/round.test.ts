import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CompiledQuery } from 'kysely';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import type { OutboxChannel } from '../../src/features/outbox/outbox.types.js';
import { OutboxDispatcher } from '../../src/features/outbox/outbox.dispatcher.js';
import { runRoundSteps, type RoundPlan } from '../../src/features/outbox/outbox.round.js';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../helpers/database.js';
import { createOwner, insertSubmissions, useMigratedDatabase } from '../helpers/factories.js';
import { addItems, leasesIn, scratchChannel } from './scratch-channel.js';

let handle: DatabaseHandle;
let services: Services;
let database: TestDatabase;
useMigratedDatabase((opened) => ({ handle, services, database } = opened));

/** A channel that makes one item of each submission it expands. */
function countingChannel(name: string): Promise<OutboxChannel> {
  return scratchChannel(handle.db, name, {
    formHasWorkSql: () => 'true',
    expand: async (trx, ids) => {
      await addItems(trx, name, ids.map((id) => `${name} ${id}`));
      return ids.length;
    },
  });
}

/** `count` new submissions of a new form, queued on the outbox as the submit path does (by a dispatcher never started). */
async function queueNewSubmissions(count: number, channels: OutboxChannel[]): Promise<void> {
  const { form } = await createOwner(services);
  const ids = await insertSubmissions(services, form.id, Array.from({ length: count }, () => ({ createdAt: new Date().toISOString() })));
  const queue = new OutboxDispatcher(handle, pino({ level: 'silent' }), channels);
  expect(await handle.db.transaction().execute((trx) => queue.queue.queue(trx, ids))).toBe(count);
}

/**
 * A round over `channels` in one transaction, as the dispatcher runs it on PostgreSQL; 8 free
 * slots each, unless `plan` says otherwise. `claims` gets the channels whose items it leased, in order.
 */
async function runRound(channels: OutboxChannel[], claims: string[], plan: Partial<RoundPlan> = {}) {
  const whole: RoundPlan = {
    channels,
    idle: new Set(),
    lease: { instance: '1' },
    freeSlots: () => 8,
    expandBatch: 32,
    dialect: handle.dialect,
    ...plan,
  };
  const queries: CompiledQuery[] = [];
  const watched = database.open({ onQuery: (q) => queries.push(q) });
  try {
    return await watched.db.transaction().execute((trx) => runRoundSteps((_what, step) => step(trx), whole));
  } finally {
    claims.push(...leasesIn(queries));
    await watched.close();
  }
}

describe('a round of the outbox', () => {
  it('claims each channel at most once: one that claimed before the expansion gave it items claims them in the next round', async () => {
    const claims: string[] = [];
    const woken = await countingChannel('woken');
    const idle = await countingChannel('idle');
    await queueNewSubmissions(2, [woken, idle]);
    const outcome = await runRound([woken, idle], claims, { idle: new Set(['idle']) });
    expect(outcome.expanded).toBe(2);
    expect(outcome.madeWork).toEqual(['woken', 'idle']);
    // `woken` claimed before the expansion (nothing was due) and not again; `idle` claimed after it.
    expect(claims).toEqual(['woken', 'idle']);
    expect(outcome.sends.map((s) => [s.channel.name, s.items.length])).toEqual([['idle', 2]]);
    expect(Object.fromEntries(outcome.drained)).toEqual({ woken: false, idle: true });
    expect(outcome.claimAgain).toBe(true);
    expect(outcome.full).toBe(false);
  });

  it('does not expand while a channel is full; a channel with room claims once, before the expansion', async () => {
    const claims: string[] = [];
    const busy = await countingChannel('busy');
    const other = await countingChannel('other');
    await queueNewSubmissions(1, [busy, other]);
    const full = await runRound([busy, other], claims, { idle: new Set(['other']), freeSlots: (channel) => (channel.name === 'busy' ? 1 : 8) });
    expect(full).toMatchObject({ full: true, expanded: 0, claimAgain: false });
    expect(claims).toEqual([]);
    const room = await runRound([busy, other], claims, { idle: new Set(['other']) });
    expect(room.expanded).toBe(1);
    // `busy` claimed once, before the expansion, and is asked again next round; `other` claimed its item after it.
    expect(claims).toEqual(['busy', 'other']);
    expect(Object.fromEntries(room.drained)).toEqual({ busy: false, other: true });
    expect(room.claimAgain).toBe(true);
  });
});
