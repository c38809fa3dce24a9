import { isUniqueViolation, type Executor } from '../../platform/db/database.js';
import type { NewUserRow, UserRow } from '../../platform/db/schema.js';
import type { User } from './account.types.js';

export function userRowToUser(row: UserRow): User {
  return { id: row.id, email: row.email, displayName: row.display_name, createdAt: row.created_at, isAdmin: row.is_admin === 1 };
}

/** False when another user holds the email already. */
export async function insertUser(db: Executor, row: NewUserRow): Promise<boolean> {
  try {
    await db.insertInto('users').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function findUserRowById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserRowByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function updateUserIsAdmin(db: Executor, id: string, isAdmin: boolean): Promise<void> {
  await db.updateTable('users').set({ is_admin: isAdmin ? 1 : 0 }).where('id', '=', id).execute();
}

/** Makes the oldest user the instance admin when there is none yet; returns its ID when it did. */
export async function promoteFirstUserIfNoAdmin(db: Executor): Promise<string | undefined> {
  const row = await db
    .updateTable('users')
    .set({ is_admin: 1 })
    .where('id', '=', (eb) => eb.selectFrom('users').select('id').orderBy('created_at').orderBy('id').limit(1))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('users as admins').select('admins.id').where('admins.is_admin', '=', 1))))
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function updateUserPasswordHash(db: Executor, id: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}

/** The user's name, and the legacy copy on the account made with the user (same ID). */
export async function updateUserDisplayName(db: Executor, id: string, displayName: string): Promise<void> {
  await db.updateTable('users').set({ display_name: displayName }).where('id', '=', id).execute();
  await db.updateTable('accounts').set({ display_name: displayName }).where('id', '=', id).execute();
}

/**
 * The user's email with whether it is confirmed (null: not), and the legacy copy on the account
 * made with the user (same ID).
 */
export async function updateUserEmail(db: Executor, id: string, email: string, confirmedAt: string | null): Promise<void> {
  await db.updateTable('users').set({ email, email_confirmed_at: confirmedAt }).where('id', '=', id).execute();
  await db.updateTable('accounts').set({ email }).where('id', '=', id).execute();
}

/** Marks the user's current address confirmed; the first confirmation's time is kept. */
export async function markUserEmailConfirmed(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('users').set({ email_confirmed_at: at }).where('id', '=', id).where('email_confirmed_at', 'is', null).execute();
}

/** Deletes a user who belongs to no account any more (their account was deleted). */
export async function deleteUserWithoutMemberships(db: Executor, id: string): Promise<void> {
  await db
    .deleteFrom('users')
    .where('id', '=', id)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('memberships').select('memberships.user_id').where('memberships.user_id', '=', id))))
    .execute();
}

export async function insertOwnerMembership(db: Executor, accountId: string, userId: string, at: string): Promise<void> {
  await db.insertInto('memberships').values({ account_id: accountId, user_id: userId, role: 'owner', created_at: at }).execute();
}

/** The user with this email and the accounts they belong to, in one query (a failed log-in's audit). */
export async function findUserAccountIdsByEmail(db: Executor, email: string): Promise<{ id: string; email: string; accountIds: string[] } | undefined> {
  const rows = await db
    .selectFrom('users')
    .leftJoin('memberships', 'memberships.user_id', 'users.id')
    .select(['users.id', 'users.email', 'memberships.account_id'])
    .where('users.email', '=', email)
    .execute();
  if (rows.length === 0) return undefined;
  return { id: rows[0]!.id, email: rows[0]!.email, accountIds: rows.flatMap((r) => (r.account_id ? [r.account_id] : [])) };
}

/** The accounts the user belongs to (a change of their login is recorded in each one's log). */
export async function findAccountIdsOfUser(db: Executor, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('memberships').select('account_id').where('user_id', '=', userId).orderBy('account_id').execute();
  return rows.map((row) => row.account_id);
}
