import { sql } from 'kysely';
import type { Executor, Trx } from '../../platform/db/database.js';
import type { LeasedItems } from '../outbox/outbox.types.js';

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

/** SQL over a form id column: the form has a hook, so its submissions have deliveries to make. */
export function formHasHookSql(formIdColumn: string): string {
  return `exists (select 1 from hooks where hooks.form_id = ${formIdColumn})`;
}

/** A submission's deliveries with their hook's target, for the owner of `accountId` only. */
export async function listDeliveryRowsOfSubmission(db: Executor, accountId: string, submissionId: string) {
  return db
    .selectFrom('hook_deliveries as d')
    .innerJoin('hooks as h', 'h.id', 'd.hook_id')
    .select(['d.id', 'd.state', 'd.attempts', 'd.created_at', 'h.target_url'])
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
