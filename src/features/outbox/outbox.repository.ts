import { CompiledQuery, sql } from 'kysely';
import type { Dialect, Executor, Trx } from '../../platform/db/database.js';
import type { LeasedItems, OutboxChannel, OutboxQueue, QueuedSubmission } from './outbox.types.js';

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

/** Which of a channel's items are due, and in what order they are leased. */
export interface DueItems {
  /** Retrying channels keep when each item is due (`next_attempt_at`); others lease by age. */
  retries: boolean;
  /** The channel's condition on an item that may be leased now (OutboxChannel.leasableSql). */
  leasable?: string | undefined;
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
  const leasable = options.leasable === undefined ? sql`` : sql`and (${sql.raw(options.leasable)})`;
  return sql<{ id: string }>`update ${t} set state = 'sending', claimed_at = ${options.now}, claimed_by = ${options.instance}
    where id in (select id from ${t} where state = 'pending' ${due} ${leasable} order by ${dueAt} limit ${options.limit} ${lockable})
    returning id`;
}

/** One attempt as it is written: the row of the attempt log and the item's new state. */
export interface AttemptWrite {
  id: string;
  channel: string;
  itemId: string;
  /** The attempt's number, which is also the item's attempts from now on. */
  attempt: number;
  attemptedAt: string;
  outcome: string;
  status: number | null;
  durationMs: number | null;
  error: string | null;
  state: string;
  /** When the item is due again: set for a retry, null otherwise (the item keeps its time). */
  nextAttemptAt: string | null;
}

/** Where the items of a group live: the channel's table, and whether it keeps a due time. */
export interface ItemTable {
  table: string;
  retries: boolean;
}

/**
 * Records one attempt on a claimed item in the caller's transaction. False when the item is gone:
 * it was deleted (with its submission, form or hook) while it was being sent, and there is
 * nothing left to record against.
 */
export async function recordAttempt(trx: Trx, items: ItemTable, w: AttemptWrite): Promise<boolean> {
  const due = items.retries && w.nextAttemptAt !== null ? sql`, next_attempt_at = ${w.nextAttemptAt}` : sql``;
  const updated = await sql`update ${sql.table(items.table)} set state = ${w.state}, attempts = ${w.attempt}, claimed_at = null, claimed_by = null${due}
    where id = ${w.itemId}`.execute(trx);
  if (Number(updated.numAffectedRows ?? 0) === 0) return false;
  await insertAttemptRow(trx, w);
  return true;
}

async function insertAttemptRow(db: Executor, w: AttemptWrite): Promise<void> {
  await db
    .insertInto('outbox_attempts')
    .values({
      id: w.id,
      channel: w.channel,
      item_id: w.itemId,
      attempt: w.attempt,
      attempted_at: w.attemptedAt,
      outcome: w.outcome,
      status: w.status,
      duration_ms: w.durationMs,
      error: w.error,
    })
    .execute();
}

/**
 * SQLite: a group's attempts in two statements of fixed text per table (one JSON parameter each,
 * so no query is built per group and one prepared statement serves every group size). An attempt
 * on an item deleted meanwhile is not recorded, as in recordAttempt.
 */
export async function recordAttemptsTogether(trx: Trx, items: ItemTable, writes: AttemptWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const states = JSON.stringify(writes.map((w) => [w.itemId, w.state, w.attempt, w.nextAttemptAt]));
  await trx.executeQuery(CompiledQuery.raw(sqliteUpdateItems(items), [states]));
  const rows = JSON.stringify(writes.map((w) => [w.id, w.channel, w.itemId, w.attempt, w.attemptedAt, w.outcome, w.status, w.durationMs, w.error]));
  await trx.executeQuery(CompiledQuery.raw(sqliteInsertAttempts(items.table), [rows]));
}

const sqliteUpdateItems = ({ table, retries }: ItemTable) => `update ${table}
  set state = v.value ->> 1, attempts = v.value ->> 2, claimed_at = null, claimed_by = null${retries ? ', next_attempt_at = coalesce(v.value ->> 3, next_attempt_at)' : ''}
  from json_each(?) as v
  where ${table}.id = v.value ->> 0`;

const sqliteInsertAttempts = (table: string) => `insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
  select v.value ->> 0, v.value ->> 1, v.value ->> 2, v.value ->> 3, v.value ->> 4, v.value ->> 5, v.value ->> 6, v.value ->> 7, v.value ->> 8
  from json_each(?) as v
  where exists (select 1 from ${table} i where i.id = v.value ->> 2)`;

/**
 * PostgreSQL: a group's attempts in one statement (items updated, attempt rows inserted),
 * skipping item rows another transaction holds; returns the item IDs it recorded (the `together`
 * of writeSkippingLocked).
 */
export async function recordAttemptsUnlessLocked(db: Executor, items: ItemTable, writes: AttemptWrite[]): Promise<Set<string>> {
  if (writes.length === 0) return new Set();
  const t = sql.table(items.table);
  const ids = writes.map((w) => w.itemId);
  const due = items.retries ? sql`, next_attempt_at = coalesce(v.next_attempt_at, i.next_attempt_at)` : sql``;
  const { rows } = await sql<{ item_id: string }>`
    with updated as (
      update ${t} i
      set state = v.state, attempts = v.attempt, claimed_at = null, claimed_by = null${due}
      from unnest(${ids}::text[], ${writes.map((w) => w.state)}::text[], ${writes.map((w) => w.attempt)}::int[],
        ${writes.map((w) => w.nextAttemptAt)}::text[]) as v(id, state, attempt, next_attempt_at)
      where i.id = v.id and i.id in (select id from ${t} where id = any(${ids}::text[]) for update skip locked)
      returning i.id
    )
    insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select a.id, a.channel, a.item_id, a.attempt, a.attempted_at, a.outcome, a.status, a.duration_ms, a.error
    from unnest(${writes.map((w) => w.id)}::text[], ${writes.map((w) => w.channel)}::text[], ${ids}::text[], ${writes.map((w) => w.attempt)}::int[],
      ${writes.map((w) => w.attemptedAt)}::text[], ${writes.map((w) => w.outcome)}::text[], ${writes.map((w) => w.status)}::int[],
      ${writes.map((w) => w.durationMs)}::int[], ${writes.map((w) => w.error)}::text[])
      as a(id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    inner join updated on updated.id = a.item_id
    returning item_id`.execute(db);
  return new Set(rows.map((row) => row.item_id));
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
