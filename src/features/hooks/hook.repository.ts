import type { Executor, Trx } from '../../platform/db/database.js';
import type { HookDeliveryRow, HookRow, HookTestDeliveryRow, NewHookRow } from '../../platform/db/schema.js';
import type { LoggedAttempt } from '../outbox/outbox.log.js';
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

export function testDeliveryRowToAttempt(row: HookTestDeliveryRow): DeliveryAttempt {
  const ok = row.response_status !== null && row.response_status >= 200 && row.response_status < 300;
  return {
    id: row.id,
    submissionId: null,
    attempts: 1,
    state: ok ? 'sent' : 'failed',
    createdAt: row.attempted_at,
    attemptedAt: row.attempted_at,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    error: row.error,
  };
}

export async function insertTestDelivery(db: Executor, row: HookTestDeliveryRow): Promise<void> {
  await db.insertInto('hook_test_deliveries').values(row).execute();
}

export async function listTestDeliveryRowsOfHook(db: Executor, hookId: string, limit: number): Promise<HookTestDeliveryRow[]> {
  return db
    .selectFrom('hook_test_deliveries')
    .selectAll()
    .where('hook_id', '=', hookId)
    .orderBy('attempted_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
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

export async function findHookRowOfAccount(db: Executor, accountId: string, id: string): Promise<HookRow | undefined> {
  return db.selectFrom('hooks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** Deletes a hook and its delivery records (their attempts go with them: migration 0029's trigger); run it inside the caller's transaction. */
export async function deleteHookRow(trx: Trx, id: string): Promise<boolean> {
  await trx.deleteFrom('hook_deliveries').where('hook_id', '=', id).execute();
  await trx.deleteFrom('hook_test_deliveries').where('hook_id', '=', id).execute();
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
