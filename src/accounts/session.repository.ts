import type { Executor } from '../db/database.js';
import type { SessionTable } from '../db/schema.js';

export async function insertSession(db: Executor, row: SessionTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function findLiveSessionAccountId(db: Executor, id: string, now: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select('account_id')
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.account_id;
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteExpiredSessions(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}

export async function listLiveSessionRowsOfAccount(db: Executor, accountId: string, now: string): Promise<SessionTable[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function deleteSessionOfAccount(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sessions').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteSessionsOfAccountExcept(db: Executor, accountId: string, keepId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('account_id', '=', accountId).where('id', '<>', keepId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
