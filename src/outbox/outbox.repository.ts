import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';

/** The NOTIFY channel that wakes every instance's dispatcher when a commit queued work. */
export const OUTBOX_NOTIFY_CHANNEL = 'formgate_outbox';

/**
 * The one definition of "this form has outbound work": a hook, an enabled integration, or (with
 * email on) a verified recipient in per-submission mode. SQL text over `formIdColumn`, shared by the query-builder
 * queue below and PostgreSQL's one-statement submit batch.
 */
export function hasOutboundWorkSql(formIdColumn: string, email: boolean): string {
  const hasHook = `(exists (select 1 from hooks where hooks.form_id = ${formIdColumn})
    or exists (select 1 from integrations where integrations.form_id = ${formIdColumn} and integrations.enabled = 1))`;
  if (!email) return hasHook;
  return `(${hasHook} or exists (select 1 from email_recipients r inner join forms f on f.id = r.form_id
    where r.form_id = ${formIdColumn} and r.state = 'verified' and f.notify_mode = 'each'))`;
}

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
        .where(sql<boolean>`${sql.raw(hasOutboundWorkSql('submissions.form_id', options.email))}`),
    )
    .onConflict((oc) => oc.column('submission_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** The forms among `formIds` that have outbound work now (one small query for a whole batch). */
export async function findFormsWithOutboundWork(trx: Executor, formIds: string[], email: boolean): Promise<Set<string>> {
  const rows = await trx
    .selectFrom('forms')
    .select('forms.id')
    .where('forms.id', 'in', formIds)
    .where(sql<boolean>`${sql.raw(hasOutboundWorkSql('forms.id', email))}`)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Queues the given just-inserted submissions as they are (the caller chose them). */
export async function insertOutboxRows(trx: Executor, submissions: Array<{ id: string; createdAt: string }>): Promise<number> {
  if (submissions.length === 0) return 0;
  const result = await trx
    .insertInto('outbox')
    .values(submissions.map((s) => ({ submission_id: s.id, created_at: s.createdAt })))
    .onConflict((oc) => oc.column('submission_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * The same queueing as one data-modifying statement over `source` (a relation with `id`,
 * `form_id` and `created_at` of just-inserted submissions), for PostgreSQL's one-statement submit
 * batch to use as a CTE. Returns the queued submission ids.
 */
export function queueOutboundWorkStatementSql(source: string, email: boolean): string {
  return `insert into outbox (submission_id, created_at)
    select s.id, s.created_at from ${source} s where ${hasOutboundWorkSql('s.form_id', email)}
    on conflict (submission_id) do nothing
    returning submission_id`;
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
