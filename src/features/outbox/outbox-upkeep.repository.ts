import { sql } from 'kysely';
import type { Dialect, Executor, Trx } from '../../platform/db/database.js';

/**
 * The outbox's queries outside its rounds: claims renewed and taken back (outbox.lease.ts), done
 * items opened again to be sent again, the NOTIFY that wakes other instances, the work pending.
 */

/** The NOTIFY channel that wakes every instance's dispatcher when a commit queued work. */
export const OUTBOX_NOTIFY_CHANNEL = 'formgate_outbox';

/** PostgreSQL: tells every instance's dispatcher that work was queued (autocommitted, after the commit that queued it). */
export async function notifyQueuedWork(db: Executor): Promise<void> {
  await sql`select pg_notify(${OUTBOX_NOTIFY_CHANNEL}, '')`.execute(db);
}

/** PostgreSQL: the connection (a dedicated one) hears notifyQueuedWork from then on. */
export async function listenForQueuedWork(db: Executor): Promise<void> {
  await sql`listen ${sql.id(OUTBOX_NOTIFY_CHANNEL)}`.execute(db);
}

/**
 * Work not yet done, in one statement: the outbox rows still to expand plus the items of every
 * channel's table (`tables`, named by the channels, never input) still pending or being sent.
 */
export async function countPendingWork(db: Executor, tables: readonly string[]): Promise<number> {
  const counts = [sql`(select count(*) from outbox)`, ...tables.map((table) => sql`(select count(*) from ${sql.table(table)} where state in ('pending', 'sending'))`)];
  const { rows } = await sql<{ n: string | number }>`select ${sql.join(counts, sql` + `)} as n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * This instance's claims in `table` stay its own: their time moves to `now`. On PostgreSQL rows
 * another transaction holds (an outcome being written, a deletion) are skipped, so renewing never
 * waits for or deadlocks with them; they are renewed next time, or are done.
 */
export async function renewLeases(db: Executor, dialect: Dialect, table: string, instance: string, now: string): Promise<void> {
  const t = sql.table(table);
  const lockable = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  await sql`update ${t} set claimed_at = ${now}
    where id in (select id from ${t} where state = 'sending' and claimed_by = ${instance} ${lockable})`.execute(db);
}

/** Claims in `table` not renewed since `expiredBefore` go back to pending (their process died); returns how many. */
export async function takeBackExpiredLeases(db: Executor, dialect: Dialect, table: string, expiredBefore: string): Promise<number> {
  const t = sql.table(table);
  const lockable = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql`update ${t} set state = 'pending', claimed_at = null, claimed_by = null
    where id in (select id from ${t} where state = 'sending' and claimed_at < ${expiredBefore} ${lockable})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * One new attempt for each of `ids` in `table` that is done (sent, failed, bounced, skipped):
 * back to pending, due now, with its ID and attempts kept. Returns how many were queued.
 */
export async function requeueItems(trx: Trx, table: string, hasDueTime: boolean, ids: string[], now: string): Promise<number> {
  if (ids.length === 0) return 0;
  const t = sql.table(table);
  const due = hasDueTime ? sql`, next_attempt_at = ${now}` : sql``;
  const result = await sql`update ${t} set state = 'pending', claimed_at = null, claimed_by = null${due}
    where id in (${sql.join(ids)}) and state not in ('pending', 'sending')`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}
