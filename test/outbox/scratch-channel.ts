import { sql, type CompiledQuery } from 'kysely';
import type { Executor } from '../../src/platform/db/database.js';
import type { LeasedItems, OutboxChannel } from '../../src/features/outbox/outbox.types.js';
import { ONCE } from '../../src/features/outbox/outbox.types.js';

/**
 * A test channel over a table of its own with the columns every channel's items have, so the
 * outbox leases its items as it leases a real channel's. `parts` replace the defaults: no forms
 * with work, nothing expanded, leased items sent as no-ops that succeed.
 */
export async function scratchChannel(db: Executor, name: string, parts: Partial<OutboxChannel> = {}): Promise<OutboxChannel> {
  const table = itemTable(name);
  await sql`create table ${sql.table(table)} (id text primary key, state text not null, created_at text not null, claimed_at text, claimed_by text, attempts integer not null default 0)`.execute(db);
  return {
    name,
    maxInFlight: 8,
    table,
    policy: ONCE,
    formHasWorkSql: () => 'false',
    expand: async () => 0,
    load: async (_trx, leased) => (await leasedIds(leased)).map((id) => ({ id, attempts: 0 })),
    send: async () => SENT,
    close: async () => {},
    ...parts,
  };
}

/** The outcome of a send that went through. */
export const SENT = { answer: { kind: 'sent' }, status: null, durationMs: null, error: null } as const;

/** Adds pending items with these IDs to the channel's table, each a millisecond after the one before. */
export async function addItems(db: Executor, channelName: string, ids: readonly string[]): Promise<void> {
  const start = Date.now();
  for (const [i, id] of ids.entries()) {
    await sql`insert into ${sql.table(itemTable(channelName))} (id, state, created_at) values (${id}, 'pending', ${new Date(start + i).toISOString()})`.execute(db);
  }
}

/** The IDs of the items being leased (on PostgreSQL this runs the lease). */
export async function leasedIds(leased: LeasedItems): Promise<string[]> {
  return (await leased.selectFrom('leased').select('id').execute()).map((row) => row.id);
}

/** The channels whose items a query among `queries` leased, in order (one entry per claim the outbox ran). */
export function leasesIn(queries: CompiledQuery[]): string[] {
  return queries.flatMap((q) => /update "test_items_(\w+)" set state = 'sending'/.exec(q.sql)?.[1] ?? []);
}

const itemTable = (channelName: string) => `test_items_${channelName}`;
