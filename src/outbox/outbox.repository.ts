import { sql } from 'kysely';
import type { Dialect, Executor, Trx } from '../db/database.js';
import type { LeasedItems, OutboxChannel, OutboxQueue, QueuedSubmission } from './outbox.channel.js';

/** The NOTIFY channel that wakes every instance's dispatcher when a commit queued work. */
export const OUTBOX_NOTIFY_CHANNEL = 'formgate_outbox';

/**
 * "This form has outbound work", as SQL over a form id column: true when any channel's own
 * condition holds (each channel owns its fragment; see OutboxChannel.formHasWorkSql).
 */
type FormHasWorkSql = (formIdColumn: string) => string;

/**
 * The outbox write of the submit transaction: one row per submission whose form has outbound
 * work, in one INSERT … SELECT over the just-inserted submissions, however many items each
 * channel will make of it. The row's time is when the submission was released (its arrival,
 * unless given): hooks subscribed by then receive it. Returns how many submissions were queued.
 */
export async function queueOutboundWork(
  trx: Trx,
  submissionIds: string[],
  options: { hasWork: FormHasWorkSql; releasedAt?: string | undefined },
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
        .where(sql<boolean>`${sql.raw(options.hasWork('submissions.form_id'))}`),
    )
    .onConflict((oc) => oc.column('submission_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** The forms among `formIds` that have outbound work now (one small query for a whole batch). */
export async function findFormsWithOutboundWork(trx: Trx, formIds: string[], hasWork: FormHasWorkSql): Promise<Set<string>> {
  const rows = await trx
    .selectFrom('forms')
    .select('forms.id')
    .where('forms.id', 'in', formIds)
    .where(sql<boolean>`${sql.raw(hasWork('forms.id'))}`)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Queues the given just-inserted submissions as they are (the caller chose them). */
export async function insertOutboxRows(trx: Trx, submissions: Array<{ id: string; createdAt: string }>): Promise<number> {
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
export function queueOutboundWorkStatementSql(source: string, hasWork: FormHasWorkSql): string {
  // The channels' checks once per form of the batch, not once per submission.
  return `insert into outbox (submission_id, created_at)
    select s.id, s.created_at from ${source} s
    where s.form_id in (select batch_forms.form_id from (select distinct form_id from ${source}) batch_forms where ${hasWork('batch_forms.form_id')})
    on conflict (submission_id) do nothing
    returning submission_id`;
}

/**
 * Locks up to `limit` of the oldest outbox rows inside the caller's transaction, which creates
 * their work (channels may join the rows) and then deletes them. On PostgreSQL the rows are
 * locked with SKIP LOCKED, so two dispatchers never take the same submission.
 */
export async function lockOutboxBatch(trx: Trx, dialect: Dialect, limit: number): Promise<string[]> {
  let query = trx.selectFrom('outbox').select('submission_id').orderBy('created_at').limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return (await query.execute()).map((row) => row.submission_id);
}

export async function deleteOutboxRows(trx: Trx, submissionIds: string[]): Promise<void> {
  await trx.deleteFrom('outbox').where('submission_id', 'in', submissionIds).execute();
}

export async function countOutboxRows(db: Executor): Promise<number> {
  const row = await db.selectFrom('outbox').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** PostgreSQL: tells every instance's dispatcher that work was queued (autocommitted, after the commit that queued it). */
export async function notifyQueuedWork(db: Executor): Promise<void> {
  await sql`select pg_notify(${OUTBOX_NOTIFY_CHANNEL}, '')`.execute(db);
}

/** PostgreSQL: the connection (a dedicated one) hears notifyQueuedWork from then on. */
export async function listenForQueuedWork(db: Executor): Promise<void> {
  await sql`listen ${sql.id(OUTBOX_NOTIFY_CHANNEL)}`.execute(db);
}

/** Which of a channel's items are due, and in what order they are leased. */
export interface DueItems {
  /** Retrying channels keep when each item is due (`next_attempt_at`); others lease by age. */
  retries: boolean;
}

/**
 * The one claim of every channel: moves up to `limit` due pending items of `table` to `sending`,
 * leased to `instance` at `now`, oldest due first, and gives them as `leased` for the channel's
 * query of what sending them needs. On PostgreSQL the lease is that query's CTE, so leasing and
 * loading are one statement (each round trip wakes a backend that takes the event loop's core
 * for a while), and SKIP LOCKED keeps concurrent dispatchers off each other's rows; the query
 * reads the items as they were before the lease. On SQLite (one writer, so the statement alone
 * is atomic) the lease runs first, and undefined means nothing was due.
 */
export async function leaseDueItems(
  trx: Trx,
  dialect: Dialect,
  table: string,
  options: DueItems & { limit: number; now: string; instance: string },
): Promise<LeasedItems | undefined> {
  if (dialect === 'postgres') {
    if (options.retries) await sql`set local enable_bitmapscan = off`.execute(trx);
    // Kysely puts a raw CTE in no parentheses of its own.
    return trx.with('leased', () => sql<{ id: string }>`(${leaseDueItemsStatement(dialect, table, options)})`);
  }
  const { rows } = await leaseDueItemsStatement(dialect, table, options).execute(trx);
  if (rows.length === 0) return undefined;
  return trx.with('leased', () => sql<{ id: string }>`(select value as id from json_each(${JSON.stringify(rows.map((row) => row.id))}))`);
}

/**
 * leaseDueItems' statement, exported for the test that checks its plan on PostgreSQL. A retrying
 * channel's items are read by walking the due index in order (`enable_bitmapscan` off for the
 * transaction): every item leaves `pending` by a non-HOT update, so until vacuum the index holds
 * a dead entry for each one sent; a bitmap scan visits them all on every claim and never marks
 * them dead, an index scan marks each one the first time it passes it. The planner picked the
 * bitmap scan from its row estimate: 1.0–1.2 ms a claim against 0.04–0.11 ms
 * (docs/performance.md#outbound-work-in-batches).
 */
export function leaseDueItemsStatement(dialect: Dialect, table: string, options: DueItems & { limit: number; now: string; instance: string }) {
  const t = sql.table(table);
  const dueAt = options.retries ? sql.ref('next_attempt_at') : sql.ref('created_at');
  const due = options.retries ? sql`and next_attempt_at <= ${options.now}` : sql``;
  const lockable = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  return sql<{ id: string }>`update ${t} set state = 'sending', claimed_at = ${options.now}, claimed_by = ${options.instance}
    where id in (select id from ${t} where state = 'pending' ${due} order by ${dueAt} limit ${options.limit} ${lockable})
    returning id`;
}

/**
 * This instance's claims in `table` stay its own: their time moves to `now`. On PostgreSQL rows
 * another transaction holds (an outcome being written, a deletion) are skipped, so renewing never
 * waits for or deadlocks with them; they are renewed next time, or are done.
 */
export async function renewLeases(db: Executor, dialect: Dialect, table: string, instance: string, now: string): Promise<void> {
  const t = sql.table(table);
  const lockable = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  await sql`update ${t} set claimed_at = ${now}
    where id in (select id from ${t} where state = 'sending' and claimed_by = ${instance} ${lockable})`.execute(db);
}

/** Claims in `table` not renewed since `expiredBefore` go back to pending (their process died); returns how many. */
export async function takeBackExpiredLeases(db: Executor, dialect: Dialect, table: string, expiredBefore: string): Promise<number> {
  const t = sql.table(table);
  const lockable = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql`update ${t} set state = 'pending', claimed_at = null, claimed_by = null
    where id in (select id from ${t} where state = 'sending' and claimed_at < ${expiredBefore} ${lockable})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * One new attempt for each of `ids` in `table` that is done (sent, failed, bounced, skipped):
 * back to pending, due now, with its ID and attempts kept. Returns how many were queued.
 */
export async function requeueItems(trx: Trx, table: string, hasDueTime: boolean, ids: string[], now: string): Promise<number> {
  if (ids.length === 0) return 0;
  const t = sql.table(table);
  const due = hasDueTime ? sql`, next_attempt_at = ${now}` : sql``;
  const result = await sql`update ${t} set state = 'pending', claimed_at = null, claimed_by = null${due}
    where id in (${sql.join(ids)}) and state not in ('pending', 'sending')`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * The queue's queries, closed over the channels' SQL: writing and dropping queued outbound work
 * inside the caller's transaction: one outbox row per
 * submission whose form has work for some channel, however many items the channels will make of
 * it. The dispatcher (outbox.dispatcher.ts) takes the rows off; `committed` is its wake-up.
 */
export class SubmissionQueue implements OutboxQueue {
  /** SQL text per form id column: the form has work for some channel (each channel owns its part). */
  private readonly hasWorkSqlByColumn = new Map<string, string>();

  constructor(
    private readonly channels: readonly OutboxChannel[],
    readonly committed: () => void,
  ) {}

  /**
   * Before the submissions themselves: the row locks are then taken in the dispatcher's order
   * (outbox row, then submission), so a deletion waits for an expansion in progress instead of
   * deadlocking with it on PostgreSQL.
   */
  async drop(trx: Trx, submissionIds: string[]): Promise<void> {
    if (submissionIds.length > 0) await deleteOutboxRows(trx, submissionIds);
  }

  async queue(trx: Trx, submissions: ReadonlyArray<string> | ReadonlyArray<QueuedSubmission>, options: { releasedAt?: string } = {}): Promise<number> {
    if (submissions.length === 0) return 0;
    if (isIdList(submissions)) return queueOutboundWork(trx, [...submissions], { hasWork: this.formHasWorkSql, releasedAt: options.releasedAt });
    // New submissions whose forms the caller knows: one query finds which of their forms have
    // work (usually none, or one form), instead of a lookup per submission.
    const forms = await findFormsWithOutboundWork(trx, [...new Set(submissions.map((s) => s.formId))], this.formHasWorkSql);
    if (forms.size === 0) return 0;
    return insertOutboxRows(trx, submissions.filter((s) => forms.has(s.formId)));
  }

  queueSql(source: string): string {
    return queueOutboundWorkStatementSql(source, this.formHasWorkSql);
  }

  /** Every channel's condition, or'ed; built once per column (it runs on every submit). */
  private readonly formHasWorkSql = (formIdColumn: string): string => {
    let text = this.hasWorkSqlByColumn.get(formIdColumn);
    if (text === undefined) {
      // In parentheses as a whole: the callers AND it with other conditions, and `a and b or c`
      // is `(a and b) or c`.
      text = this.channels.length === 0 ? 'false' : `(${this.channels.map((channel) => `(${channel.formHasWorkSql(formIdColumn)})`).join(' or ')})`;
      this.hasWorkSqlByColumn.set(formIdColumn, text);
    }
    return text;
  };
}

function isIdList(submissions: ReadonlyArray<string> | ReadonlyArray<QueuedSubmission>): submissions is ReadonlyArray<string> {
  return typeof submissions[0] === 'string';
}
