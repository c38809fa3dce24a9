import { sql, type SelectQueryBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Database, OutboxAttemptRow } from '../../platform/db/schema.js';

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

/** The newest `limit` test sends logged under these subjects, newest first. */
export async function listTestSendRows(db: Executor, subjectIds: string[], limit: number): Promise<OutboxAttemptRow[]> {
  if (subjectIds.length === 0) return [];
  return db
    .selectFrom('outbox_attempts')
    .selectAll()
    .where('item_id', 'in', subjectIds)
    .orderBy('attempted_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** A test send, logged under its subject as the next of the subject's attempts (one statement). */
export async function insertTestSendRow(db: Executor, row: Omit<OutboxAttemptRow, 'attempt'>): Promise<void> {
  await db
    .insertInto('outbox_attempts')
    .columns(['id', 'channel', 'item_id', 'attempt', 'attempted_at', 'outcome', 'status', 'duration_ms', 'error'])
    .expression(
      db
        .selectFrom('outbox_attempts')
        .select([
          sql<string>`${row.id}`.as('id'),
          sql<string>`${row.channel}`.as('channel'),
          sql<string>`${row.item_id}`.as('item_id'),
          sql<number>`coalesce(max(attempt), 0) + 1`.as('attempt'),
          sql<string>`${row.attempted_at}`.as('attempted_at'),
          sql<string>`${row.outcome}`.as('outcome'),
          sql<number | null>`cast(${row.status} as integer)`.as('status'),
          sql<number | null>`cast(${row.duration_ms} as integer)`.as('duration_ms'),
          sql<string | null>`${row.error}`.as('error'),
        ])
        .where('item_id', '=', row.item_id),
    )
    .execute();
}
