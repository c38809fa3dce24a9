import type { Executor } from '../../platform/db/database.js';

/**
 * Records a solution as spent. False when it was already recorded (by this instance or any
 * other on the database): the primary key makes the second insert a no-op, atomically.
 */
export async function insertSpentAltchaSolution(
  db: Executor,
  row: { challenge: string; form_id: string; expires_at: string },
): Promise<boolean> {
  const result = await db
    .insertInto('altcha_spent_solutions')
    .values(row)
    .onConflict((oc) => oc.column('challenge').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Spent solutions whose challenge has expired: replaying them fails on the expiry alone. */
export async function deleteExpiredAltchaSolutions(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('altcha_spent_solutions').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
