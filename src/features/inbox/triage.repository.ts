import type { Executor, Trx } from '../../platform/db/database.js';

/** Marks submissions spam by the owner's decision; returns how many rows changed. */
export async function markSubmissionRowsSpam(trx: Trx, ids: string[]): Promise<number> {
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
export async function releaseSpamSubmissionRows(trx: Trx, ids: string[]): Promise<string[]> {
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
export async function clearSpamOfSubmissionRows(trx: Trx, ids: string[]): Promise<number> {
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

/** The accounts these submissions belong to (one, unless the operator's CLI marks across accounts). */
export async function findAccountIdsOfSubmissions(db: Executor, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('submissions')
    .innerJoin('forms', 'forms.id', 'submissions.form_id')
    .select('forms.account_id')
    .distinct()
    .where('submissions.id', 'in', ids)
    .execute();
  return rows.map((r) => r.account_id);
}

/** How many of these are spam whose outbound work was never released: "not spam" would send theirs now. */
export async function countUnreleasedSpamRows(db: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const row = await db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('id', 'in', ids)
    .where('is_spam', '=', 1)
    .where('outbound_released', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
