import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

/** Marks submissions spam by the owner's decision; returns how many rows changed. */
export async function markSubmissionRowsSpam(trx: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx.updateTable('submissions').set({ is_spam: 1, spam_reason: 'marked' }).where('id', 'in', ids).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Takes spam submissions whose outbound work was never released out of spam and marks them
 * released, returning their IDs. The conditions make this happen once per submission: on
 * PostgreSQL a concurrent transaction doing the same waits for the row lock and then no longer
 * matches; SQLite has one writer.
 */
export async function releaseSpamSubmissionRows(trx: Executor, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('submissions')
    .set({ is_spam: 0, spam_reason: null, outbound_released: 1 })
    .where('id', 'in', ids)
    .where('is_spam', '=', 1)
    .where('outbound_released', '=', 0)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Marks submissions not spam without releasing anything (theirs was released before). */
export async function clearSpamOfSubmissionRows(trx: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx.updateTable('submissions').set({ is_spam: 0, spam_reason: null }).where('id', 'in', ids).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Which of these IDs are submissions of the account's forms (all of them when accountId is absent). */
export async function filterSubmissionIdsOfAccount(db: Executor, ids: string[], accountId?: string): Promise<string[]> {
  if (ids.length === 0) return [];
  let q = db.selectFrom('submissions').innerJoin('forms', 'forms.id', 'submissions.form_id').select('submissions.id').where('submissions.id', 'in', ids);
  if (accountId !== undefined) q = q.where('forms.account_id', '=', accountId);
  return (await q.execute()).map((r) => r.id);
}

/** Up to `limit` submissions of a form created before `before` (all of the form's without it). */
export async function selectSubmissionIdsOfForm(trx: Executor, formId: string, limit: number, before?: string): Promise<string[]> {
  let q = trx.selectFrom('submissions').select('id').where('form_id', '=', formId);
  if (before !== undefined) q = q.where('created_at', '<', before);
  return (await q.orderBy('created_at').orderBy('id').limit(limit).execute()).map((r) => r.id);
}

/** Deletes submissions; their hook fan-out rows and deliveries go with them (foreign-key cascade). */
export async function deleteSubmissionRowsByIds(trx: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx.deleteFrom('submissions').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteIdempotencyRecordsOfForm(trx: Executor, formId: string): Promise<void> {
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
