import type { Executor } from '../../platform/db/database.js';
import type { ApiIdempotencyKeyRow } from '../../platform/db/schema.js';
import type { StoredAnswer } from './form-config.types.js';

export interface ApiIdempotencyRecord {
  requestHash: string;
  state: 'pending' | 'done';
  answer: StoredAnswer | undefined;
}

export function apiIdempotencyRowToRecord(row: ApiIdempotencyKeyRow): ApiIdempotencyRecord {
  return {
    requestHash: row.request_hash,
    state: row.state === 'done' ? 'done' : 'pending',
    answer: row.state === 'done' && row.response !== null ? { status: Number(row.status_code), ...(JSON.parse(row.response) as Omit<StoredAnswer, 'status'>) } : undefined,
  };
}

/**
 * Claims the key for a request, as pending: true when this request is the first (or the record
 * there expired, or was left pending since `abandonedBefore` by a process that stopped, and is
 * taken over). Autocommitted, so a concurrent claim sees it at once; on PostgreSQL a claim racing
 * another waits for it and then finds it there.
 */
export async function claimApiIdempotencyKey(
  db: Executor,
  record: { apiKeyId: string; key: string; requestHash: string; createdAt: string },
  expiredBefore: string,
  abandonedBefore: string,
): Promise<boolean> {
  const claimed = await db
    .insertInto('api_idempotency_keys')
    .values({ api_key_id: record.apiKeyId, idempotency_key: record.key, request_hash: record.requestHash, state: 'pending', status_code: null, response: null, created_at: record.createdAt })
    .onConflict((oc) =>
      oc
        .columns(['api_key_id', 'idempotency_key'])
        .doUpdateSet({ request_hash: record.requestHash, state: 'pending', status_code: null, response: null, created_at: record.createdAt })
        .where((eb) =>
          eb.or([
            eb('api_idempotency_keys.created_at', '<', expiredBefore),
            eb.and([eb('api_idempotency_keys.state', '=', 'pending'), eb('api_idempotency_keys.created_at', '<', abandonedBefore)]),
          ]),
        ),
    )
    .returning('api_key_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function findApiIdempotencyRecord(db: Executor, apiKeyId: string, key: string): Promise<ApiIdempotencyRecord | undefined> {
  const row = await db.selectFrom('api_idempotency_keys').selectAll().where('api_key_id', '=', apiKeyId).where('idempotency_key', '=', key).executeTakeFirst();
  return row && apiIdempotencyRowToRecord(row);
}

export async function completeApiIdempotencyRecord(db: Executor, apiKeyId: string, key: string, answer: StoredAnswer): Promise<void> {
  const { status, ...rest } = answer;
  await db
    .updateTable('api_idempotency_keys')
    .set({ state: 'done', status_code: status, response: JSON.stringify(rest) })
    .where('api_key_id', '=', apiKeyId)
    .where('idempotency_key', '=', key)
    .execute();
}

/** Errors are not kept: the request may be sent again with the same key. */
export async function deletePendingApiIdempotencyRecord(db: Executor, apiKeyId: string, key: string): Promise<void> {
  await db.deleteFrom('api_idempotency_keys').where('api_key_id', '=', apiKeyId).where('idempotency_key', '=', key).where('state', '=', 'pending').execute();
}

export async function deleteExpiredApiIdempotencyRecords(db: Executor, expiredBefore: string): Promise<number> {
  const result = await db.deleteFrom('api_idempotency_keys').where('created_at', '<', expiredBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}
