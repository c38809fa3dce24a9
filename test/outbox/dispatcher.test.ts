import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { OutboxChannel, OutboxSend } from '../../src/outbox/outbox.channel.js';
import { OutboxDispatcher } from '../../src/outbox/outbox.dispatcher.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

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

/** A channel with `count` items due at its first claim and none after; it notes what happens when. */
function channelWithDueItems(count: number, events: string[]): OutboxChannel {
  let claimed = false;
  return {
    name: 'test',
    maxInFlight: count,
    formHasWorkSql: () => 'false',
    expand: async () => 0,
    claim: async (limit: number): Promise<OutboxSend[]> => {
      if (claimed) return [];
      claimed = true;
      // Work that arrived while the claim ran (a request, say) waits for the next turn.
      setImmediate(() => events.push('other work'));
      return Array.from({ length: Math.min(limit, count) }, (_, i) => async () => {
        events.push(`send ${i}`);
      });
    },
    countPending: async () => 0,
    close: async () => {},
  };
}

describe('outbox dispatcher', () => {
  it('starts a large claim in slices: work that arrived meanwhile runs before the last send starts', async () => {
    const events: string[] = [];
    const dispatcher = new OutboxDispatcher(handle, pino({ level: 'silent' }), [channelWithDueItems(24, events)]);
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
});
