import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

/**
 * The outbox write of the submit transaction: one pending delivery per subscription of each
 * submission's form, in one INSERT … SELECT over the just-inserted submissions. The delivery ID
 * is the submission ID joined with the hook ID, which is also the Standard Webhooks `webhook-id`.
 * Returns how many deliveries were queued.
 */
export async function enqueueDeliveriesForSubmissions(trx: Executor, submissionIds: string[]): Promise<number> {
  if (submissionIds.length === 0) return 0;
  const result = await trx
    .insertInto('hook_deliveries')
    .columns(['id', 'hook_id', 'submission_id', 'state', 'created_at'])
    .expression(
      trx
        .selectFrom('submissions')
        .innerJoin('hooks', 'hooks.form_id', 'submissions.form_id')
        .select([
          sql<string>`submissions.id || '.' || hooks.id`.as('id'),
          'hooks.id as hook_id',
          'submissions.id as submission_id',
          sql<string>`'pending'`.as('state'),
          'submissions.created_at as created_at',
        ])
        .where('submissions.id', 'in', submissionIds),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
