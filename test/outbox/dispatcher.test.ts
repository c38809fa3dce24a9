import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import type { CompiledQuery } from 'kysely';
import type { OutboxChannel } from '../../src/features/outbox/outbox.types.js';
import { OutboxDispatcher } from '../../src/features/outbox/outbox.dispatcher.js';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../helpers/database.js';
import { createOwner, insertSubmissions, useMigratedDatabase } from '../helpers/factories.js';
import { addItems, leasedIds, leasesIn, scratchChannel, SENT } from './scratch-channel.js';

let handle: DatabaseHandle;
let services: Services;
let database: TestDatabase;
useMigratedDatabase((opened) => ({ handle, services, database } = opened));

/** A channel with `count` items due at its first claim and none after; it notes what happens when. */
async function channelWithDueItems(count: number, events: string[]): Promise<OutboxChannel> {
  const channel = await scratchChannel(handle.db, 'test', {
    maxInFlight: count,
    load: async (_trx, leased) => (await leasedIds(leased)).map((id, i) => ({ id, attempts: 0, i })),
    send: async (item) => {
      const { i } = item as unknown as { i: number };
      // Work that arrives once sending began (a request, say) waits for the next turn.
      if (i === 0) setImmediate(() => events.push('other work'));
      events.push(`send ${i}`);
      return SENT;
    },
  });
  await addItems(handle.db, 'test', Array.from({ length: count }, (_, i) => `item ${i}`));
  return channel;
}

describe('outbox dispatcher', () => {
  it('starts a large claim in slices: work that arrived meanwhile runs before the last send starts', async () => {
    const events: string[] = [];
    const dispatcher = new OutboxDispatcher(handle, pino({ level: 'silent' }), [await channelWithDueItems(24, events)]);
    dispatcher.start();
    try {
      await dispatcher.settle();
      const sends = events.filter((e) => e.startsWith('send '));
      expect(sends).toEqual(Array.from({ length: 24 }, (_, i) => `send ${i}`));
      const other = events.indexOf('other work');
      expect(other).toBeGreaterThan(0);
      expect(other).toBeLessThan(events.indexOf('send 23'));
    } finally {
      await dispatcher.stop();
    }
  });

  it('after a commit that queued submissions, only the expansion wakes a channel whose last claim found nothing; wake() wakes all', async () => {
    const queries: CompiledQuery[] = [];
    const watched = database.open({ onQuery: (q) => queries.push(q) });
    const claims = () => ({ idle: leasesIn(queries).filter((c) => c === 'idle').length, busy: leasesIn(queries).filter((c) => c === 'busy').length });
    const expanded: string[][] = [];
    /** Has nothing ever; expands nothing (a hook channel for a form without hooks). */
    const idle = await scratchChannel(handle.db, 'idle', { maxInFlight: 4 });
    /** Makes one item of each submission it expands, sent at its next claim. */
    const busy = await scratchChannel(handle.db, 'busy', {
      maxInFlight: 4,
      formHasWorkSql: () => 'true',
      expand: async (trx, ids) => {
        expanded.push(ids);
        await addItems(trx, 'busy', ids);
        return ids.length;
      },
    });
    const { form } = await createOwner(services);
    const dispatcher = new OutboxDispatcher(watched, pino({ level: 'silent' }), [idle, busy]);
    dispatcher.start();
    try {
      await dispatcher.settle();
      expect(claims()).toEqual({ idle: 1, busy: 1 });
      for (let i = 0; i < 3; i++) {
        const [id] = await insertSubmissions(services, form.id, [{ createdAt: new Date().toISOString() }]);
        await handle.db.transaction().execute((trx) => dispatcher.queue.queue(trx, [id!]));
        dispatcher.wakeToExpand();
        await dispatcher.settle();
        // Only the submission queued: the other channel's condition does not widen the queueing
        // (the two conditions OR'ed inside the submissions filter once queued every submission).
        expect(expanded.at(-1)).toEqual([id]);
      }
      // Each expansion woke the channel it gave an item; the idle one was not asked again.
      expect(claims().idle).toBe(1);
      expect(claims().busy).toBeGreaterThanOrEqual(4);
      dispatcher.wake();
      await dispatcher.settle();
      expect(claims().idle).toBe(2);
    } finally {
      await dispatcher.stop();
      await watched.close();
    }
  });

  it('runs a round in one transaction on PostgreSQL (each step in its own on SQLite, or after a round that failed), so a failing claim stops no other channel', async () => {
    const together = handle.dialect === 'postgres';
    const trxOf: Record<string, unknown[]> = { expand: [], good: [], broken: [] };
    const sent: Array<{ id: string; outboxRowGone: boolean }> = [];
    const outboxRowExists = async (id: string) =>
      (await handle.db.selectFrom('outbox').select('submission_id').where('submission_id', '=', id).executeTakeFirst()) !== undefined;
    /** One item per expanded submission; each send notes whether the expansion that made it was committed. */
    const good = await scratchChannel(handle.db, 'good', {
      formHasWorkSql: () => 'true',
      expand: async (trx, ids) => {
        trxOf.expand!.push(trx);
        await addItems(trx, 'good', ids);
        return ids.length;
      },
      load: async (trx, leased) => {
        trxOf.good!.push(trx);
        return (await leasedIds(leased)).map((id) => ({ id, attempts: 0 }));
      },
      send: async (item) => {
        sent.push({ id: item.id, outboxRowGone: !(await outboxRowExists(item.id)) });
        return SENT;
      },
    });
    let failing = false;
    /** One item per expanded submission too; loading them throws while `failing`. */
    const broken = await scratchChannel(handle.db, 'broken', {
      formHasWorkSql: () => 'true',
      expand: async (trx, ids) => {
        await addItems(trx, 'broken', ids);
        return ids.length;
      },
      load: async (trx, leased) => {
        trxOf.broken!.push(trx);
        if (failing) throw new Error('the claim failed');
        return (await leasedIds(leased)).map((id) => ({ id, attempts: 0 }));
      },
    });
    const { form } = await createOwner(services);
    const dispatcher = new OutboxDispatcher(handle, pino({ level: 'silent' }), [good, broken]);
    const queueOne = async () => {
      const [id] = await insertSubmissions(services, form.id, [{ createdAt: new Date().toISOString() }]);
      await handle.db.transaction().execute((trx) => dispatcher.queue.queue(trx, [id!]));
      dispatcher.wakeToExpand();
      await dispatcher.settle();
      return id!;
    };
    dispatcher.start();
    try {
      await dispatcher.settle();
      failing = true;
      const first = await queueOne();
      // PostgreSQL: the round's claim of `good` was rolled back with the expansion, and its sends
      // never started; the steps apart then expanded again. Either way `good` sent once, after
      // the commit of the expansion that made its item.
      expect(sent).toEqual([{ id: first, outboxRowGone: true }]);
      expect(await outboxRowExists(first)).toBe(false);
      expect(trxOf.expand).toHaveLength(together ? 2 : 1);
      expect(trxOf.good!.at(-1)).not.toBe(trxOf.expand!.at(-1));
      failing = false;
      dispatcher.wake();
      await dispatcher.settle();
      // A round whose steps all succeeded: on PostgreSQL the next runs in one transaction again.
      const second = await queueOne();
      expect(sent.map((s) => s.id)).toEqual([first, second]);
      expect(sent.at(-1)!.outboxRowGone).toBe(true);
      const roundTrx = trxOf.expand!.at(-1);
      expect(trxOf.good!.at(-1) === roundTrx).toBe(together);
      expect(trxOf.broken!.at(-1) === roundTrx).toBe(together);
    } finally {
      await dispatcher.stop();
    }
  });
});
