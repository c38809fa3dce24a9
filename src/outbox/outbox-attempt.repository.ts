import { CompiledQuery, sql, type SelectQueryBuilder } from 'kysely';
import type { Executor, Trx } from '../db/database.js';
import type { Database, OutboxAttemptRow } from '../db/schema.js';

/** One attempt as it is written: the row of the attempt log and the item's new state. */
export interface AttemptWrite {
  id: string;
  channel: string;
  itemId: string;
  /** The attempt's number, which is also the item's attempts from now on. */
  attempt: number;
  attemptedAt: string;
  outcome: string;
  status: number | null;
  durationMs: number | null;
  error: string | null;
  state: string;
  /** When the item is due again: set for a retry, null otherwise (the item keeps its time). */
  nextAttemptAt: string | null;
}

/** Where the items of a group live: the channel's table, and whether it keeps a due time. */
export interface ItemTable {
  table: string;
  retries: boolean;
}

/**
 * Records one attempt on a claimed item in the caller's transaction. False when the item is gone:
 * it was deleted (with its submission, form or hook) while it was being sent, and there is
 * nothing left to record against.
 */
export async function recordAttempt(trx: Trx, items: ItemTable, w: AttemptWrite): Promise<boolean> {
  const due = items.retries && w.nextAttemptAt !== null ? sql`, next_attempt_at = ${w.nextAttemptAt}` : sql``;
  const updated = await sql`update ${sql.table(items.table)} set state = ${w.state}, attempts = ${w.attempt}, claimed_at = null, claimed_by = null${due}
    where id = ${w.itemId}`.execute(trx);
  if (Number(updated.numAffectedRows ?? 0) === 0) return false;
  await insertAttemptRow(trx, w);
  return true;
}

/** An attempt at something that is no outbox item (an integration's test message), logged under its ID. */
export async function insertAttemptRow(db: Executor, w: Omit<AttemptWrite, 'state' | 'nextAttemptAt'>): Promise<void> {
  await db
    .insertInto('outbox_attempts')
    .values({
      id: w.id,
      channel: w.channel,
      item_id: w.itemId,
      attempt: w.attempt,
      attempted_at: w.attemptedAt,
      outcome: w.outcome,
      status: w.status,
      duration_ms: w.durationMs,
      error: w.error,
    })
    .execute();
}

/**
 * SQLite: a group's attempts in two statements of fixed text per table (one JSON parameter each,
 * so no query is built per group and one prepared statement serves every group size). An attempt
 * on an item deleted meanwhile is not recorded, as in recordAttempt.
 */
export async function recordAttemptsTogether(trx: Trx, items: ItemTable, writes: AttemptWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const states = JSON.stringify(writes.map((w) => [w.itemId, w.state, w.attempt, w.nextAttemptAt]));
  await trx.executeQuery(CompiledQuery.raw(sqliteUpdateItems(items), [states]));
  const rows = JSON.stringify(writes.map((w) => [w.id, w.channel, w.itemId, w.attempt, w.attemptedAt, w.outcome, w.status, w.durationMs, w.error]));
  await trx.executeQuery(CompiledQuery.raw(sqliteInsertAttempts(items.table), [rows]));
}

const sqliteUpdateItems = ({ table, retries }: ItemTable) => `update ${table}
  set state = v.value ->> 1, attempts = v.value ->> 2, claimed_at = null, claimed_by = null${retries ? ', next_attempt_at = coalesce(v.value ->> 3, next_attempt_at)' : ''}
  from json_each(?) as v
  where ${table}.id = v.value ->> 0`;

const sqliteInsertAttempts = (table: string) => `insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
  select v.value ->> 0, v.value ->> 1, v.value ->> 2, v.value ->> 3, v.value ->> 4, v.value ->> 5, v.value ->> 6, v.value ->> 7, v.value ->> 8
  from json_each(?) as v
  where exists (select 1 from ${table} i where i.id = v.value ->> 2)`;

/**
 * PostgreSQL: a group's attempts in one statement (items updated, attempt rows inserted),
 * skipping item rows another transaction holds; returns the item IDs it recorded (the `together`
 * of writeSkippingLocked).
 */
export async function recordAttemptsUnlessLocked(db: Executor, items: ItemTable, writes: AttemptWrite[]): Promise<Set<string>> {
  if (writes.length === 0) return new Set();
  const t = sql.table(items.table);
  const ids = writes.map((w) => w.itemId);
  const due = items.retries ? sql`, next_attempt_at = coalesce(v.next_attempt_at, i.next_attempt_at)` : sql``;
  const { rows } = await sql<{ item_id: string }>`
    with updated as (
      update ${t} i
      set state = v.state, attempts = v.attempt, claimed_at = null, claimed_by = null${due}
      from unnest(${ids}::text[], ${writes.map((w) => w.state)}::text[], ${writes.map((w) => w.attempt)}::int[],
        ${writes.map((w) => w.nextAttemptAt)}::text[]) as v(id, state, attempt, next_attempt_at)
      where i.id = v.id and i.id in (select id from ${t} where id = any(${ids}::text[]) for update skip locked)
      returning i.id
    )
    insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select a.id, a.channel, a.item_id, a.attempt, a.attempted_at, a.outcome, a.status, a.duration_ms, a.error
    from unnest(${writes.map((w) => w.id)}::text[], ${writes.map((w) => w.channel)}::text[], ${ids}::text[], ${writes.map((w) => w.attempt)}::int[],
      ${writes.map((w) => w.attemptedAt)}::text[], ${writes.map((w) => w.outcome)}::text[], ${writes.map((w) => w.status)}::int[],
      ${writes.map((w) => w.durationMs)}::int[], ${writes.map((w) => w.error)}::text[])
      as a(id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    inner join updated on updated.id = a.item_id
    returning item_id`.execute(db);
  return new Set(rows.map((row) => row.item_id));
}

/** The attempts of these items, each item's in order. */
export async function listAttemptRowsOfItems(db: Executor, itemIds: string[]): Promise<OutboxAttemptRow[]> {
  if (itemIds.length === 0) return [];
  return db.selectFrom('outbox_attempts').selectAll().where('item_id', 'in', itemIds).orderBy('item_id').orderBy('attempt').orderBy('attempted_at').execute();
}

/** The newest `limit` attempts of the items `items` selects (a channel's query of its own IDs), newest first. */
export async function listNewestAttemptRows(db: Executor, items: SelectQueryBuilder<Database, any, { id: string }>, limit: number): Promise<OutboxAttemptRow[]> {
  return db
    .selectFrom('outbox_attempts')
    .selectAll()
    .where('item_id', 'in', items)
    .orderBy('attempted_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
