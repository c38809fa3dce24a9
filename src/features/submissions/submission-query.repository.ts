import type { Executor } from '../../platform/db/database.js';
import type { SubmissionRow } from '../../platform/db/schema.js';
import type { SubmissionPosition } from './submission.types.js';

interface ListSubmissionsQuery {
  limit: number;
  /** Rows strictly after this position in newest-first order. */
  after?: SubmissionPosition;
  /** Only spam (1) or only non-spam (0); both when absent. */
  isSpam?: 0 | 1;
  /** created_at ≥ since and < until (ISO text). */
  since?: string;
  until?: string;
}

/**
 * Keyset page of a form's submissions, newest first: a range scan of
 * submissions_form_newest_idx (or the spam index), whatever the depth.
 */
export async function listSubmissionRowsOfForm(
  db: Executor,
  formId: string,
  query: ListSubmissionsQuery,
): Promise<SubmissionRow[]> {
  let q = db.selectFrom('submissions').selectAll().where('form_id', '=', formId);
  if (query.isSpam !== undefined) q = q.where('is_spam', '=', query.isSpam);
  if (query.since !== undefined) q = q.where('created_at', '>=', query.since);
  if (query.until !== undefined) q = q.where('created_at', '<', query.until);
  if (query.after) {
    const { createdAt, id } = query.after;
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}

/** A submission of a form the account owns; another account's is as unknown as a missing one. */
export async function findSubmissionRowOfAccount(
  db: Executor,
  accountId: string,
  id: string,
): Promise<SubmissionRow | undefined> {
  return db
    .selectFrom('submissions')
    .innerJoin('forms', 'forms.id', 'submissions.form_id')
    .selectAll('submissions')
    .where('submissions.id', '=', id)
    .where('forms.account_id', '=', accountId)
    .executeTakeFirst();
}

export async function findSubmissionRowById(db: Executor, id: string): Promise<SubmissionRow | undefined> {
  return db.selectFrom('submissions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countSubmissionRowsOfForm(db: Executor, formId: string, isSpam?: 0 | 1): Promise<number> {
  let q = db.selectFrom('submissions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('form_id', '=', formId);
  if (isSpam !== undefined) q = q.where('is_spam', '=', isSpam);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
