import type { Executor } from '../db/database.js';
import type { SubmissionRow } from '../db/schema.js';
import { parsePayload, toSpamReason, type ExportedSubmission, type Submission, type SubmissionStatus } from './submission.types.js';

export function submissionRowToSubmission(row: SubmissionRow): Submission {
  return {
    id: row.id,
    formId: row.form_id,
    createdAt: row.created_at,
    status: row.status as SubmissionStatus,
    isSpam: row.is_spam === 1,
    spamReason: row.is_spam === 1 ? toSpamReason(row.spam_reason) : null,
    spamScore: row.is_spam === 1 && row.spam_reason === 'classifier' && row.spam_score != null ? Number(row.spam_score) : null,
    payload: parsePayload(row.payload),
    ip: row.ip,
    country: row.country,
    userAgent: row.user_agent,
    referer: row.referer,
  };
}

type ExportRow = Pick<SubmissionRow, 'id' | 'created_at' | 'is_spam' | 'spam_reason' | 'country' | 'payload'>;

export function exportRowToExportedSubmission(row: ExportRow): ExportedSubmission {
  return {
    id: row.id,
    createdAt: row.created_at,
    isSpam: row.is_spam === 1,
    spamReason: row.is_spam === 1 ? toSpamReason(row.spam_reason) : null,
    country: row.country,
    payload: parsePayload(row.payload),
  };
}

/** A page of an export, newest first: only the columns it writes (half the bytes to read and parse). */
export async function listExportRowsOfForm(db: Executor, formId: string, query: { limit: number; after?: SubmissionPosition }): Promise<ExportRow[]> {
  return exportPageQuery(db, formId, query).select(['id', 'created_at', 'is_spam', 'spam_reason', 'country', 'payload']).execute();
}

/** The same page with only the payload (and the position): what the CSV's first pass, which collects field names, reads. */
export async function listExportPayloadsOfForm(
  db: Executor,
  formId: string,
  query: { limit: number; after?: SubmissionPosition },
): Promise<Array<Pick<SubmissionRow, 'id' | 'created_at' | 'payload'>>> {
  return exportPageQuery(db, formId, query).select(['id', 'created_at', 'payload']).execute();
}

function exportPageQuery(db: Executor, formId: string, query: { limit: number; after?: SubmissionPosition }) {
  let q = db.selectFrom('submissions').where('form_id', '=', formId);
  if (query.after) {
    const { createdAt, id } = query.after;
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit);
}

/** Position in "newest first" order: the (createdAt, id) of the last row of the previous page. */
export interface SubmissionPosition {
  createdAt: string;
  id: string;
}

export interface ListSubmissionsQuery {
  limit: number;
  /** Rows strictly after this position in newest-first order. */
  after?: SubmissionPosition;
  /** Only spam (1) or only non-spam (0); both when absent. */
  isSpam?: 0 | 1;
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

export async function deleteSubmissionRow(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('submissions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
