import { CompiledQuery, sql } from 'kysely';
import type { Executor, Trx } from '../db/database.js';
import type { LeasedItems } from '../outbox/outbox.channel.js';

/**
 * The hook part of expanding the outbox: one pending delivery per hook of the submission's form
 * that existed when it was released (its outbox row's time: a subscription receives what came
 * after it), in one
 * INSERT … SELECT. The delivery ID is the submission ID joined with the hook ID, which is also
 * the Standard Webhooks `webhook-id`; expanding twice is harmless. Returns how many it created.
 */
export async function insertHookDeliveries(trx: Trx, submissionIds: string[]): Promise<number> {
  const result = await trx
    .insertInto('hook_deliveries')
    .columns(['id', 'hook_id', 'submission_id', 'state', 'created_at'])
    .expression(
      trx
        .selectFrom('outbox')
        .innerJoin('submissions', 'submissions.id', 'outbox.submission_id')
        .innerJoin('hooks', (join) =>
          join.onRef('hooks.form_id', '=', 'submissions.form_id').onRef('hooks.created_at', '<=', 'outbox.created_at'),
        )
        .select([
          sql<string>`submissions.id || '.' || hooks.id`.as('id'),
          'hooks.id as hook_id',
          'submissions.id as submission_id',
          sql<string>`'pending'`.as('state'),
          'submissions.created_at as created_at',
        ])
        .where('outbox.submission_id', 'in', submissionIds),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** What the dispatcher needs to send one claimed delivery. */
export interface ClaimedDelivery {
  id: string;
  hookId: string;
  /** Attempts made before this one (a re-send's is at least 1). */
  attempts: number;
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

/** What sending the deliveries being leased to this instance needs (in the lease's transaction). */
export async function loadLeasedDeliveries(leased: LeasedItems): Promise<ClaimedDelivery[]> {
  const rows = await leased
    .selectFrom('hook_deliveries as d')
    .innerJoin('hooks as h', 'h.id', 'd.hook_id')
    .innerJoin('submissions as s', 's.id', 'd.submission_id')
    .select([
      'd.id',
      'd.hook_id',
      'd.attempts',
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
    .where('d.id', 'in', (eb) => eb.selectFrom('leased').select('leased.id'))
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
  return rows.map(claimedRowToDelivery);
}

type ClaimedDeliveryRow = {
  id: string;
  hook_id: string;
  attempts: number;
  target_url: string;
  secret: string;
  submission_id: string;
  form_id: string;
  created_at: string;
  ip: string;
  country: string;
  user_agent: string;
  referer: string;
  payload: string;
};

const claimedRowToDelivery = (r: ClaimedDeliveryRow): ClaimedDelivery => ({
  id: r.id,
  hookId: r.hook_id,
  attempts: Number(r.attempts),
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
});

export interface DeliveryAttempt {
  id: string;
  /** Attempts made, this one included. */
  attempts: number;
  state: 'sent' | 'failed';
  attemptedAt: string;
  status: number | null;
  durationMs: number;
  error: string | null;
}

/** Records the outcome of one delivery. */
export async function recordDeliveryAttempt(db: Executor, attempt: DeliveryAttempt): Promise<void> {
  await db
    .updateTable('hook_deliveries')
    .set({
      state: attempt.state,
      attempts: attempt.attempts,
      claimed_by: null,
      attempted_at: attempt.attemptedAt,
      response_status: attempt.status,
      duration_ms: attempt.durationMs,
      error: attempt.error,
    })
    .where('id', '=', attempt.id)
    .execute();
}

/**
 * SQLite: the outcomes of several deliveries in one statement of fixed text (one JSON parameter,
 * so no query is built per group and one prepared statement serves every group size).
 */
export async function recordDeliveryAttemptsTogether(db: Executor, attempts: DeliveryAttempt[]): Promise<void> {
  const values = JSON.stringify(attempts.map((a) => [a.id, a.state, a.attemptedAt, a.status, a.durationMs, a.error, a.attempts]));
  await db.executeQuery(CompiledQuery.raw(SQLITE_RECORD_DELIVERY_ATTEMPTS, [values]));
}

const SQLITE_RECORD_DELIVERY_ATTEMPTS = `update hook_deliveries
  set state = v.value ->> 1, attempted_at = v.value ->> 2, response_status = v.value ->> 3, duration_ms = v.value ->> 4, error = v.value ->> 5,
    attempts = v.value ->> 6, claimed_by = null
  from json_each(?) as v
  where hook_deliveries.id = v.value ->> 0`;

/**
 * PostgreSQL: the outcomes of several deliveries in one statement, skipping rows another
 * transaction holds; returns the IDs it recorded (the `together` of writeSkippingLocked).
 */
export async function recordDeliveryAttemptsUnlessLocked(db: Executor, attempts: DeliveryAttempt[]): Promise<Set<string>> {
  const ids = attempts.map((a) => a.id);
  const { rows } = await sql<{ id: string }>`
    update hook_deliveries d
    set state = v.state, attempted_at = v.attempted_at, response_status = v.response_status, duration_ms = v.duration_ms, error = v.error,
      attempts = v.attempts, claimed_by = null
    from unnest(${ids}::text[], ${attempts.map((a) => a.state)}::text[], ${attempts.map((a) => a.attemptedAt)}::text[],
      ${attempts.map((a) => a.status)}::int[], ${attempts.map((a) => a.durationMs)}::int[], ${attempts.map((a) => a.error)}::text[],
      ${attempts.map((a) => a.attempts)}::int[])
      as v(id, state, attempted_at, response_status, duration_ms, error, attempts)
    where d.id = v.id and d.id in (select id from hook_deliveries where id = any(${ids}::text[]) for update skip locked)
    returning d.id`.execute(db);
  return new Set(rows.map((row) => row.id));
}

export async function countUnsentDeliveries(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('hook_deliveries')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('state', 'in', ['pending', 'sending'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** SQL over a form id column: the form has a hook, so its submissions have deliveries to make. */
export function formHasHookSql(formIdColumn: string): string {
  return `exists (select 1 from hooks where hooks.form_id = ${formIdColumn})`;
}

/** A submission's deliveries with their hook's target, for the owner of `accountId` only. */
export async function listDeliveryRowsOfSubmission(db: Executor, accountId: string, submissionId: string) {
  return db
    .selectFrom('hook_deliveries as d')
    .innerJoin('hooks as h', 'h.id', 'd.hook_id')
    .select(['d.id', 'd.state', 'd.attempts', 'd.created_at', 'd.attempted_at', 'd.response_status', 'd.error', 'h.target_url'])
    .where('d.submission_id', '=', submissionId)
    .where('h.account_id', '=', accountId)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}

/** The delivery, if its hook is the account's. */
export async function findDeliveryIdOfAccount(db: Executor, accountId: string, deliveryId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('hook_deliveries as d')
    .innerJoin('hooks as h', 'h.id', 'd.hook_id')
    .select('d.id')
    .where('d.id', '=', deliveryId)
    .where('h.account_id', '=', accountId)
    .executeTakeFirst();
  return row?.id;
}

/** Up to `limit` deliveries of the hook made in [since, until) whose last attempt failed, oldest first. */
export async function listFailedDeliveryIdsOfHook(db: Executor, hookId: string, range: { since: string; until: string | undefined }, limit: number): Promise<string[]> {
  let query = db
    .selectFrom('hook_deliveries')
    .select('id')
    .where('hook_id', '=', hookId)
    .where('state', '=', 'failed')
    .where('created_at', '>=', range.since);
  if (range.until !== undefined) query = query.where('created_at', '<', range.until);
  return (await query.orderBy('created_at').orderBy('id').limit(limit).execute()).map((row) => row.id);
}

/**
 * Before done deliveries are sent again: each one's last answer joins its earlier attempts, so
 * the log keeps every attempt while the automatic send writes only the delivery's own row.
 */
export async function keepLastAttempts(trx: Trx, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await trx
    .insertInto('hook_delivery_attempts')
    .columns(['delivery_id', 'attempt', 'attempted_at', 'response_status', 'duration_ms', 'error'])
    .expression(
      trx
        .selectFrom('hook_deliveries')
        .select(['id', 'attempts', sql<string>`attempted_at`.as('attempted_at'), 'response_status', 'duration_ms', 'error'])
        .where('id', 'in', deliveryIds)
        .where('state', 'not in', ['pending', 'sending'])
        .where('attempted_at', 'is not', null),
    )
    .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
    .execute();
}

/** The earlier attempts of the deliveries, oldest first. */
export async function listEarlierAttempts(db: Executor, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('hook_delivery_attempts')
    .select(['delivery_id', 'attempt', 'attempted_at', 'response_status', 'error'])
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}
