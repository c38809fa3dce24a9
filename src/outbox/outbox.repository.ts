import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';

/**
 * The outbox write of the submit transaction: one row per submission whose form has outbound
 * work (a hook, or with `email` a verified recipient in per-submission mode), in one
 * INSERT … SELECT over the just-inserted submissions, however many hooks and recipients there
 * are. The row's time is when the submission was released (its arrival, unless given): hooks
 * subscribed by then receive it. Returns how many submissions were queued.
 */
export async function queueOutboundWork(
  trx: Executor,
  submissionIds: string[],
  options: { email: boolean; releasedAt?: string | undefined },
): Promise<number> {
  if (submissionIds.length === 0) return 0;
  const result = await trx
    .insertInto('outbox')
    .columns(['submission_id', 'created_at'])
    .expression(
      trx
        .selectFrom('submissions')
        .select([
          'submissions.id',
          options.releasedAt === undefined ? 'submissions.created_at' : sql<string>`${options.releasedAt}`.as('created_at'),
        ])
        .where('submissions.id', 'in', submissionIds)
        .where(({ exists, or, selectFrom }) => {
          const hasHook = exists(selectFrom('hooks').select('hooks.id').whereRef('hooks.form_id', '=', 'submissions.form_id'));
          if (!options.email) return hasHook;
          const hasRecipient = exists(
            selectFrom('email_recipients as r')
              .innerJoin('forms as f', 'f.id', 'r.form_id')
              .select('r.id')
              .whereRef('r.form_id', '=', 'submissions.form_id')
              .where('r.state', '=', 'verified')
              .where('f.notify_mode', '=', 'each'),
          );
          return or([hasHook, hasRecipient]);
        }),
    )
    .onConflict((oc) => oc.column('submission_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Locks up to `limit` of the oldest outbox rows inside the caller's transaction, which creates
 * their work (channels may join the rows) and then deletes them. On PostgreSQL the rows are
 * locked with SKIP LOCKED, so two dispatchers never take the same submission.
 */
export async function lockOutboxBatch(trx: Executor, dialect: Dialect, limit: number): Promise<string[]> {
  let query = trx.selectFrom('outbox').select('submission_id').orderBy('created_at').limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return (await query.execute()).map((row) => row.submission_id);
}

export async function deleteOutboxRows(trx: Executor, submissionIds: string[]): Promise<void> {
  await trx.deleteFrom('outbox').where('submission_id', 'in', submissionIds).execute();
}

export async function countOutboxRows(db: Executor): Promise<number> {
  const row = await db.selectFrom('outbox').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
