import { CompiledQuery, sql } from 'kysely';
import type { Executor, Trx } from '../db/database.js';

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
 * `staleBefore`: its process died mid-send; without `staleBefore`, from pending only) to sending,
 * and returns them. SQLite has a single writer, so the UPDATE alone is atomic; runs in the
 * caller's transaction. PostgreSQL: claimPendingDeliveriesInOneStatement.
 */
export async function claimPendingDeliveries(
  trx: Trx,
  options: { limit: number; now: string; staleBefore: string | undefined },
): Promise<ClaimedDelivery[]> {
  // Two index range scans on (state, created_at), never one OR: with an OR the database
  // collects and sorts every pending row to return the oldest few, which costs as much as the
  // backlog is long. Abandoned claims go first; there are few, and a backlog must not starve them.
  const abandoned = options.staleBefore === undefined ? [] : await claimableIds(trx, 'sending', options.limit, options.staleBefore);
  const pending = abandoned.length < options.limit ? await claimableIds(trx, 'pending', options.limit - abandoned.length) : [];
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
  return rows.map(claimedRowToDelivery);
}

type ClaimedDeliveryRow = {
  id: string;
  hook_id: string;
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

/**
 * PostgreSQL: claimPendingDeliveries as one autocommitted statement of fixed text instead of a
 * transaction of six round trips. Each round trip wakes a backend that takes the event loop's
 * core for a while (the soak's profile: a third of the loop's busy time was spent in the driver's
 * writes). Candidate rows are locked with SKIP LOCKED, so concurrent dispatchers never claim the
 * same row; the same two range scans, abandoned claims first.
 */
export async function claimPendingDeliveriesInOneStatement(
  db: Executor,
  options: { limit: number; now: string; staleBefore: string | undefined },
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.executeQuery<ClaimedDeliveryRow>(
    CompiledQuery.raw(POSTGRES_CLAIM_DELIVERIES, [options.limit, options.now, options.staleBefore ?? null]),
  );
  return rows.map(claimedRowToDelivery);
}

// Without a staleBefore ($3 null) the abandoned scan is skipped whole (a one-time filter).
const POSTGRES_CLAIM_DELIVERIES = `with abandoned as materialized (
    select id from hook_deliveries where $3::text is not null and state = 'sending' and claimed_at < $3
    order by created_at limit $1 for update skip locked
  ), pending as materialized (
    select id from hook_deliveries where state = 'pending'
    order by created_at limit greatest($1 - (select count(*) from abandoned), 0) for update skip locked
  ), claimed as (
    update hook_deliveries d set state = 'sending', claimed_at = $2
    where d.id in (select id from abandoned union all select id from pending)
    returning d.id, d.hook_id, d.submission_id
  )
  select c.id, c.hook_id, h.target_url, h.secret, s.id as submission_id, s.form_id, s.created_at, s.ip, s.country,
    s.user_agent, s.referer, s.payload
  from claimed c inner join hooks h on h.id = c.hook_id inner join submissions s on s.id = c.submission_id`;

async function claimableIds(
  trx: Trx,
  state: 'pending' | 'sending',
  limit: number,
  claimedBefore?: string,
): Promise<string[]> {
  let query = trx.selectFrom('hook_deliveries').select('id').where('state', '=', state);
  if (claimedBefore !== undefined) query = query.where('claimed_at', '<', claimedBefore);
  query = query.orderBy('created_at').limit(limit);
  return (await query.execute()).map((row) => row.id);
}

export interface DeliveryAttempt {
  id: string;
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
  const values = JSON.stringify(attempts.map((a) => [a.id, a.state, a.attemptedAt, a.status, a.durationMs, a.error]));
  await db.executeQuery(CompiledQuery.raw(SQLITE_RECORD_DELIVERY_ATTEMPTS, [values]));
}

const SQLITE_RECORD_DELIVERY_ATTEMPTS = `update hook_deliveries
  set state = v.value ->> 1, attempted_at = v.value ->> 2, response_status = v.value ->> 3, duration_ms = v.value ->> 4, error = v.value ->> 5
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
    set state = v.state, attempted_at = v.attempted_at, response_status = v.response_status, duration_ms = v.duration_ms, error = v.error
    from unnest(${ids}::text[], ${attempts.map((a) => a.state)}::text[], ${attempts.map((a) => a.attemptedAt)}::text[],
      ${attempts.map((a) => a.status)}::int[], ${attempts.map((a) => a.durationMs)}::int[], ${attempts.map((a) => a.error)}::text[])
      as v(id, state, attempted_at, response_status, duration_ms, error)
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
