import pino from 'pino';
import { sql, type CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { OutboxDispatcher } from '../../src/features/outbox/outbox.dispatcher.js';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../helpers/database.js';
import { createOwner, insertSubmissions, useMigratedDatabase } from '../helpers/factories.js';
import { addItems, leasedIds, scratchChannel, SENT } from './scratch-channel.js';

// The outbox owns every outcome: an item its channel's load skips is recorded by the outbox,
// `skipped` with the channel's reason, in the one attempt log; and the work pending is one query
// over every channel's items.
let handle: DatabaseHandle;
let services: Services;
let database: TestDatabase;
useMigratedDatabase((opened) => ({ handle, services, database } = opened));

async function itemsOf(channelName: string) {
  const { rows } = await sql<{ id: string; state: string; attempts: number; claimed_by: string | null }>`
    select id, state, attempts, claimed_by from ${sql.table(`test_items_${channelName}`)} order by id`.execute(handle.db);
  return rows.map((r) => [r.id, r.state, Number(r.attempts), r.claimed_by]);
}

describe('the outbox owns every outcome', () => {
  it("records an item the channel's load skips as skipped, with the reason, and never sends it", async () => {
    const sent: string[] = [];
    const channel = await scratchChannel(handle.db, 'skipping', {
      load: async (_trx, leased) => (await leasedIds(leased)).map((id) => ({ id, attempts: 0, ...(id.startsWith('skip') ? { skip: `not for ${id}` } : {}) })),
      send: async (item) => {
        sent.push(item.id);
        return SENT;
      },
    });
    await addItems(handle.db, 'skipping', ['go 1', 'skip 1', 'skip 2']);
    const dispatcher = new OutboxDispatcher(handle, pino({ level: 'silent' }), [channel]);
    dispatcher.start();
    try {
      await dispatcher.settle();
    } finally {
      await dispatcher.stop();
    }
    expect(sent).toEqual(['go 1']);
    // Settled by the outbox: the claim cleared, the attempt counted.
    expect(await itemsOf('skipping')).toEqual([
      ['go 1', 'sent', 1, null],
      ['skip 1', 'skipped', 1, null],
      ['skip 2', 'skipped', 1, null],
    ]);
    const log = await handle.db.selectFrom('outbox_attempts').select(['item_id', 'channel', 'attempt', 'outcome', 'status', 'error']).where('channel', '=', 'skipping').orderBy('item_id').execute();
    expect(log.map((a) => [a.item_id, a.channel, Number(a.attempt), a.outcome, a.status, a.error])).toEqual([
      ['go 1', 'skipping', 1, 'sent', null, null],
      ['skip 1', 'skipping', 1, 'skipped', null, 'not for skip 1'],
      ['skip 2', 'skipping', 1, 'skipped', null, 'not for skip 2'],
    ]);
  });

  it("counts the work pending over every channel's items and the submissions still to expand, in one query", async () => {
    const first = await scratchChannel(handle.db, 'counted_a');
    const second = await scratchChannel(handle.db, 'counted_b');
    await addItems(handle.db, 'counted_a', ['a1', 'a2', 'a3']);
    await addItems(handle.db, 'counted_b', ['b1', 'b2']);
    // Done items are not pending; one being sent is.
    await sql`update test_items_counted_a set state = 'sent' where id = 'a1'`.execute(handle.db);
    await sql`update test_items_counted_b set state = 'sending' where id = 'b1'`.execute(handle.db);
    await sql`update test_items_counted_b set state = 'skipped' where id = 'b2'`.execute(handle.db);
    const { form } = await createOwner(services);
    const ids = await insertSubmissions(services, form.id, [{ createdAt: new Date().toISOString() }, { createdAt: new Date().toISOString() }]);
    await handle.db.insertInto('outbox').values(ids.map((id) => ({ submission_id: id, created_at: new Date().toISOString() }))).execute();

    const queries: CompiledQuery[] = [];
    const watched = database.open({ onQuery: (q) => queries.push(q) });
    try {
      const dispatcher = new OutboxDispatcher(watched, pino({ level: 'silent' }), [first, second]);
      // a2, a3 pending; b1 sending; two submissions to expand.
      expect(await dispatcher.countPending()).toBe(5);
    } finally {
      await watched.close();
      await handle.db.deleteFrom('outbox').where('submission_id', 'in', ids).execute();
    }
    expect(queries).toHaveLength(1);
  });
});
