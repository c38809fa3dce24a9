import type { Executor } from '../db/database.js';
import type { IdempotencyKeyRow, NewSubmissionRow } from '../db/schema.js';

// Keeps each multi-row INSERT well under SQLite's and PostgreSQL's bind-parameter limits.
const ROWS_PER_INSERT = 200;

export async function insertSubmissionRows(trx: Executor, rows: NewSubmissionRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await trx.insertInto('submissions').values(rows.slice(i, i + ROWS_PER_INSERT)).execute();
  }
}

export interface IdempotencyRecordInput {
  formId: string;
  key: string;
  submissionId: string;
  result: string;
  createdAt: string;
}

/**
 * Claims an idempotency key inside the submit transaction. A record older than `expiredBefore`
 * is taken over; a live one wins and nothing is written (false). On PostgreSQL a concurrent
 * claim of the same key in another transaction blocks here until that one commits or rolls back,
 * so two instances never both succeed.
 */
export async function claimIdempotencyKey(
  trx: Executor,
  record: IdempotencyRecordInput,
  expiredBefore: string,
): Promise<boolean> {
  const claimed = await trx
    .insertInto('idempotency_keys')
    .values({
      form_id: record.formId,
      idempotency_key: record.key,
      submission_id: record.submissionId,
      result: record.result,
      created_at: record.createdAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['form_id', 'idempotency_key'])
        .doUpdateSet({
          submission_id: record.submissionId,
          result: record.result,
          created_at: record.createdAt,
        })
        .where('idempotency_keys.created_at', '<', expiredBefore),
    )
    .returning('submission_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function findLiveIdempotencyRecord(
  db: Executor,
  formId: string,
  key: string,
  expiredBefore: string,
): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('form_id', '=', formId)
    .where('idempotency_key', '=', key)
    .where('created_at', '>=', expiredBefore)
    .executeTakeFirst();
}

export async function deleteExpiredIdempotencyRecords(db: Executor, expiredBefore: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', expiredBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}
