import type { Executor, Trx } from '../../platform/db/database.js';
import type { HookDeliveryRow, HookRow, NewHookRow } from '../../platform/db/schema.js';
import type { LoggedAttempt } from '../outbox/outbox.types.js';
import type { DeliveryAttempt, DeliveryState, Hook } from './hook.types.js';

export function hookRowToHook(row: HookRow): Hook {
  return { id: row.id, formId: row.form_id, targetUrl: row.target_url, createdAt: row.created_at };
}

/** A delivery as its hook's log shows it, with its last attempt's answer (from the outbox's attempt log). */
export function deliveryRowToAttempt(row: HookDeliveryRow, last: LoggedAttempt | undefined): DeliveryAttempt {
  return {
    id: row.id,
    submissionId: row.submission_id,
    attempts: Number(row.attempts),
    state: row.state as DeliveryState,
    createdAt: row.created_at,
    attemptedAt: last?.attemptedAt ?? null,
    responseStatus: last?.status ?? null,
    durationMs: last?.durationMs ?? null,
    error: last?.error ?? null,
  };
}

/** A "Send test" as the hook's log shows it: one attempt, no submission. */
export function testSendToAttempt(test: LoggedAttempt): DeliveryAttempt {
  return {
    id: test.id,
    submissionId: null,
    attempts: 1,
    state: test.outcome === 'sent' ? 'sent' : 'failed',
    createdAt: test.attemptedAt,
    attemptedAt: test.attemptedAt,
    responseStatus: test.status,
    durationMs: test.durationMs,
    error: test.error,
  };
}

export async function insertHook(db: Executor, row: NewHookRow): Promise<void> {
  await db.insertInto('hooks').values(row).execute();
}

export async function listHookRowsOfAccount(db: Executor, accountId: string): Promise<HookRow[]> {
  return db
    .selectFrom('hooks')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function findHookRow(db: Executor, id: string): Promise<HookRow | undefined> {
  return db.selectFrom('hooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findHookRowOfAccount(db: Executor, accountId: string, id: string): Promise<HookRow | undefined> {
  return db.selectFrom('hooks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/**
 * Deletes a hook and its deliveries; their attempts and the hook's test sends go with them (the
 * triggers of migrations 0029 and 0032). Runs inside the caller's transaction.
 */
export async function deleteHookRow(trx: Trx, id: string): Promise<boolean> {
  await trx.deleteFrom('hook_deliveries').where('hook_id', '=', id).execute();
  const result = await trx.deleteFrom('hooks').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function listDeliveryRowsOfHook(db: Executor, hookId: string, limit: number): Promise<HookDeliveryRow[]> {
  return db
    .selectFrom('hook_deliveries')
    .selectAll()
    .where('hook_id', '=', hookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
