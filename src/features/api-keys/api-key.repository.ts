import type { Executor } from '../../platform/db/database.js';
import type { ApiKeyRow, NewApiKeyRow } from '../../platform/db/schema.js';
import { API_KEY_SCOPES, type ApiKey, type ApiKeyScope } from './api-key.types.js';

/** An unknown stored scope (a later version's) grants no more than reading. */
export function scopeOfRow(row: Pick<ApiKeyRow, 'scope'>): ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(row.scope) ? (row.scope as ApiKeyScope) : 'read';
}

export function apiKeyRowToApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.key_prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    scope: scopeOfRow(row),
  };
}

export async function insertApiKey(db: Executor, row: NewApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findApiKeyRowByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  // A disabled account's keys are as unknown as revoked ones.
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('accounts').select('accounts.id').whereRef('accounts.id', '=', 'api_keys.account_id').where('accounts.disabled_at', 'is not', null))),
    )
    .executeTakeFirst();
}

export async function findApiKeyRowById(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeyRows(db: Executor, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Returns whether a live key was revoked. */
export async function revokeApiKeyRow(db: Executor, id: string, at: string, accountId?: string): Promise<boolean> {
  let query = db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null);
  if (accountId) query = query.where('account_id', '=', accountId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function touchApiKeyRow(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
