import type { SelectQueryBuilder } from 'kysely';
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
