import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';

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
    let candidates = trx
      .selectFrom('hook_deliveries')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('state', '=', 'pending'),
          eb.and([eb('state', '=', 'sending'), eb('claimed_at', '<', options.staleBefore)]),
        ]),
      )
      .orderBy('created_at')
      .limit(options.limit);
    if (dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
    const ids = (await candidates.execute()).map((r) => r.id);
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
