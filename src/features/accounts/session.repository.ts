import type { Executor } from '../../platform/db/database.js';
import type { SessionTable } from '../../platform/db/schema.js';

export async function insertSession(db: Executor, row: SessionTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** A live session with its user and the user's role in the session's account (null: no longer a member). */
export async function findLiveSessionWithRole(db: Executor, id: string, now: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .leftJoin('memberships', (join) => join.onRef('memberships.account_id', '=', 'sessions.account_id').onRef('memberships.user_id', '=', 'sessions.user_id'))
    .select(['sessions.account_id', 'users.id as user_id', 'users.email', 'users.display_name', 'users.created_at', 'users.is_admin', 'sessions.signed_on_at', 'memberships.role'])
    .where('sessions.id', '=', id)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

/** Moves the session to another account of its user; false when the user is no member there. */
export async function updateSessionAccount(db: Executor, id: string, accountId: string): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ account_id: accountId })
    .where('id', '=', id)
    .where((eb) => eb.exists(eb.selectFrom('memberships').select('memberships.role').where('memberships.account_id', '=', accountId).whereRef('memberships.user_id', '=', 'sessions.user_id')))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function updateSessionSignedOnAt(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ signed_on_at: at }).where('id', '=', id).execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteExpiredSessions(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}

export async function listLiveSessionRowsOfUser(db: Executor, userId: string, now: string): Promise<SessionTable[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function deleteSessionOfUser(db: Executor, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteSessionsOfUserExcept(db: Executor, userId: string, keepId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '<>', keepId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
