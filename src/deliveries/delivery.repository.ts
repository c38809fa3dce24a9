import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

/**
 * The outbox write of the submit transaction: one pending delivery per subscription of the form,
 * in one INSERT … SELECT. The delivery ID is the submission ID joined with the hook ID, which is
 * also the Standard Webhooks `webhook-id`. Returns how many deliveries were queued.
 */
export async function enqueueDeliveriesForSubmission(
  trx: Executor,
  submission: { id: string; formId: string; createdAt: string },
): Promise<number> {
  const result = await trx
    .insertInto('hook_deliveries')
    .columns(['id', 'hook_id', 'submission_id', 'state', 'created_at'])
    .expression(
      trx
        .selectFrom('hooks')
        .select([
          sql<string>`${submission.id} || '.' || hooks.id`.as('id'),
          'hooks.id as hook_id',
          sql<string>`${submission.id}`.as('submission_id'),
          sql<string>`'pending'`.as('state'),
          sql<string>`${submission.createdAt}`.as('created_at'),
        ])
        .where('hooks.form_id', '=', submission.formId),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
