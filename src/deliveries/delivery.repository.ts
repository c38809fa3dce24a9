import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';

/**
 * The outbox write of the submit transaction: one fan-out row per submission whose form has a
 * hook, in one INSERT … SELECT over the just-inserted submissions, however many hooks there are.
 * Returns how many submissions were queued. `releasedAt` (default: each submission's arrival)
 * decides which subscriptions receive it: those that existed at that moment.
 */
export async function queueHookFanouts(trx: Executor, submissionIds: string[], releasedAt?: string): Promise<number> {
  if (submissionIds.length === 0) return 0;
  const result = await trx
    .insertInto('hook_fanouts')
    .columns(['submission_id', 'created_at'])
    .expression(
      trx
        .selectFrom('submissions')
        .select([
          'submissions.id',
          releasedAt === undefined ? 'submissions.created_at' : sql<string>`${releasedAt}`.as('created_at'),
        ])
        .where('submissions.id', 'in', submissionIds)
        .where(({ exists, selectFrom }) =>
          exists(selectFrom('hooks').select('hooks.id').whereRef('hooks.form_id', '=', 'submissions.form_id')),
        ),
    )
    .onConflict((oc) => oc.column('submission_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Turns up to `limit` of the oldest fan-out rows into one pending delivery per hook of the
 * submission's form that existed when it was submitted (a subscription receives what came after
 * it), and removes them; returns how many rows it took. The delivery ID is the submission ID
 * joined with the hook ID, which is also the Standard Webhooks `webhook-id`. On PostgreSQL the
 * rows are locked with SKIP LOCKED, so two dispatchers never fan out the same submission.
 */
export async function fanOutHookDeliveries(db: Executor, dialect: Dialect, limit: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let query = trx.selectFrom('hook_fanouts').select('submission_id').orderBy('created_at').limit(limit);
    if (dialect === 'postgres') query = query.forUpdate().skipLocked();
    const ids = (await query.execute()).map((row) => row.submission_id);
    if (ids.length === 0) return 0;
    await trx
      .insertInto('hook_deliveries')
      .columns(['id', 'hook_id', 'submission_id', 'state', 'created_at'])
      .expression(
        trx
          .selectFrom('hook_fanouts')
          .innerJoin('submissions', 'submissions.id', 'hook_fanouts.submission_id')
          // The fan-out row's time is when the submission was released: its arrival, or the
          // moment the owner marked it not spam (it then goes to the hooks of that moment).
          .innerJoin('hooks', (join) =>
            join.onRef('hooks.form_id', '=', 'submissions.form_id').onRef('hooks.created_at', '<=', 'hook_fanouts.created_at'),
          )
          .select([
            sql<string>`submissions.id || '.' || hooks.id`.as('id'),
            'hooks.id as hook_id',
            'submissions.id as submission_id',
            sql<string>`'pending'`.as('state'),
            'submissions.created_at as created_at',
          ])
          .where('hook_fanouts.submission_id', 'in', ids),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    await trx.deleteFrom('hook_fanouts').where('submission_id', 'in', ids).execute();
    return ids.length;
  });
}

/** What the dispatcher needs to send one claimed delivery. */
export interface ClaimedDelivery {
  id: string;
  hookId: string;
  targetUrl: string;
  secret: string;
  submission: {
    id: string;
    formId: string;
    createdAt: string;
    ip: string;
    country: string;
    userAgent: string;
    referer: string;
    payload: string;
  };
}

/**
 * Moves up to `limit` deliveries from pending (or from sending, when a claim is older than
 * `staleBefore`: its process died mid-send) to sending, and returns them. On PostgreSQL the
 * candidate rows are locked with SKIP LOCKED, so concurrent dispatchers never claim the same
 * row; SQLite has a single writer, so the UPDATE alone is atomic.
 */
export async function claimPendingDeliveries(
  db: Executor,
  dialect: Dialect,
  options: { limit: number; now: string; staleBefore: string },
): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (trx) => {
    // Two index range scans on (state, created_at), never one OR: with an OR the database
    // collects and sorts every pending row to return the oldest few, which costs as much as the
    // backlog is long. Abandoned claims go first; there are few, and a backlog must not starve them.
    const abandoned = await claimableIds(trx, dialect, 'sending', options.limit, options.staleBefore);
    const pending = abandoned.length < options.limit ? await claimableIds(trx, dialect, 'pending', options.limit - abandoned.length) : [];
    const ids = [...abandoned, ...pending];
    if (ids.length === 0) return [];
    await trx
      .updateTable('hook_deliveries')
      .set({ state: 'sending', claimed_at: options.now })
      .where('id', 'in', ids)
      .execute();
    const rows = await trx
      .selectFrom('hook_deliveries as d')
      .innerJoin('hooks as h', 'h.id', 'd.hook_id')
      .innerJoin('submissions as s', 's.id', 'd.submission_id')
      .select([
        'd.id',
        'd.hook_id',
        'h.target_url',
        'h.secret',
        's.id as submission_id',
        's.form_id',
        's.created_at',
        's.ip',
        's.country',
        's.user_agent',
        's.referer',
        's.payload',
      ])
      .where('d.id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      hookId: r.hook_id,
      targetUrl: r.target_url,
      secret: r.secret,
      submission: {
        id: r.submission_id,
        formId: r.form_id,
        createdAt: r.created_at,
        ip: r.ip,
        country: r.country,
        userAgent: r.user_agent,
        referer: r.referer,
        payload: r.payload,
      },
    }));
  });
}

async function claimableIds(
  trx: Executor,
  dialect: Dialect,
  state: 'pending' | 'sending',
  limit: number,
  claimedBefore?: string,
): Promise<string[]> {
  let query = trx.selectFrom('hook_deliveries').select('id').where('state', '=', state);
  if (claimedBefore !== undefined) query = query.where('claimed_at', '<', claimedBefore);
  query = query.orderBy('created_at').limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return (await query.execute()).map((row) => row.id);
}

export async function recordDeliveryAttempt(
  db: Executor,
  id: string,
  attempt: { state: 'sent' | 'failed'; attemptedAt: string; status: number | null; durationMs: number; error: string | null },
): Promise<void> {
  await db
    .updateTable('hook_deliveries')
    .set({
      state: attempt.state,
      attempted_at: attempt.attemptedAt,
      response_status: attempt.status,
      duration_ms: attempt.durationMs,
      error: attempt.error,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * The hook outbox's size, for the metrics gauge: deliveries not yet sent (pending or being sent,
 * an index range scan on state) plus submissions still waiting to be fanned out to their hooks.
 */
export async function countOutboxPending(db: Executor): Promise<number> {
  const deliveries = await db
    .selectFrom('hook_deliveries')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('state', 'in', ['pending', 'sending'])
    .executeTakeFirstOrThrow();
  const fanouts = await db
    .selectFrom('hook_fanouts')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(deliveries.n) + Number(fanouts.n);
}
