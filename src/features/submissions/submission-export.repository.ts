import type { Executor } from '../../platform/db/database.js';
import type { SubmissionRow } from '../../platform/db/schema.js';
import { parsePayload, toSpamReason, type ExportedSubmission, type SubmissionPosition } from './submission.types.js';

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
