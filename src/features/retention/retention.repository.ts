import { sql } from 'kysely';
import type { Executor, Trx } from '../../platform/db/database.js';

/** Up to `limit` submissions of a form created before `before` (all of the form's without it). */
export async function selectSubmissionIdsOfForm(trx: Trx, formId: string, limit: number, before?: string): Promise<string[]> {
  let q = trx.selectFrom('submissions').select('id').where('form_id', '=', formId);
  if (before !== undefined) q = q.where('created_at', '<', before);
  return (await q.orderBy('created_at').orderBy('id').limit(limit).execute()).map((r) => r.id);
}

/** Which of these IDs are submissions of the form. */
export async function filterSubmissionIdsOfForm(db: Executor, formId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('submissions').select('id').where('form_id', '=', formId).where('id', 'in', ids).execute()).map((r) => r.id);
}

/**
 * Deletes submissions; what still refers to them (hook deliveries, email messages, an outbox row
 * the caller did not drop) goes with them by foreign-key cascade.
 */
export async function deleteSubmissionRowsByIds(trx: Trx, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx.deleteFrom('submissions').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteIdempotencyRecordsOfForm(trx: Trx, formId: string): Promise<void> {
  await trx.deleteFrom('idempotency_keys').where('form_id', '=', formId).execute();
}

/**
 * A page (by ID) of an account's submissions whose payload may hold `needle`: with a needle, a
 * case-insensitive LIKE over the payload text narrows the scan, and the caller checks each row.
 */
export async function scanSubmissionsOfAccount(
  db: Executor,
  accountId: string,
  options: { afterId: string; limit: number; needle?: string },
): Promise<Array<{ id: string; payload: string }>> {
  let q = db
    .selectFrom('submissions')
    .innerJoin('forms', 'forms.id', 'submissions.form_id')
    .select(['submissions.id', 'submissions.payload'])
    .where('forms.account_id', '=', accountId)
    .where('submissions.id', '>', options.afterId);
  if (options.needle !== undefined) {
    const pattern = `%${options.needle.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<boolean>`lower(submissions.payload) like ${pattern} escape '\\'`);
  }
  return q.orderBy('submissions.id').limit(options.limit).execute();
}
