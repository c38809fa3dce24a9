import { isUniqueViolation, type Executor } from '../db/database.js';
import type { AccountRow, NewAccountRow } from '../db/schema.js';
import type { Plan } from '../config.js';
import type { Account } from './account.types.js';

export function accountRowToAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    planId: row.plan_id as Plan,
    createdAt: row.created_at,
    isAdmin: row.is_admin === 1,
    disabled: row.disabled_at !== null,
    timeZone: row.time_zone,
  };
}

/** False when another account holds the email already (two sign-ups racing for it). */
export async function insertAccount(db: Executor, row: NewAccountRow): Promise<boolean> {
  try {
    await db.insertInto('accounts').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

/** True once any account exists (a fresh instance has none). */
export async function hasAnyAccountRow(db: Executor): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
}

export async function findAccountRowById(db: Executor, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findAccountRowByEmail(db: Executor, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function updateAccountPlan(db: Executor, id: string, plan: Plan): Promise<void> {
  await db.updateTable('accounts').set({ plan_id: plan }).where('id', '=', id).execute();
}

export async function updateAccountDisplayName(db: Executor, id: string, displayName: string): Promise<void> {
  await db.updateTable('accounts').set({ display_name: displayName }).where('id', '=', id).execute();
}

export async function updateAccountEmail(db: Executor, id: string, email: string): Promise<void> {
  await db.updateTable('accounts').set({ email }).where('id', '=', id).execute();
}

export async function updateAccountTimeZone(db: Executor, id: string, timeZone: string | null): Promise<void> {
  await db.updateTable('accounts').set({ time_zone: timeZone }).where('id', '=', id).execute();
}

export async function updateAccountPasswordHash(db: Executor, id: string, passwordHash: string): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}

export async function updateAccountDisabledAt(db: Executor, id: string, disabledAt: string | null): Promise<void> {
  await db.updateTable('accounts').set({ disabled_at: disabledAt }).where('id', '=', id).execute();
}

export async function updateAccountIsAdmin(db: Executor, id: string, isAdmin: boolean): Promise<void> {
  await db.updateTable('accounts').set({ is_admin: isAdmin ? 1 : 0 }).where('id', '=', id).execute();
}

/** Makes the oldest account the admin when there is none yet; returns its ID when it did. */
export async function promoteFirstAccountIfNoAdmin(db: Executor): Promise<string | undefined> {
  const row = await db
    .updateTable('accounts')
    .set({ is_admin: 1 })
    .where('id', '=', (eb) => eb.selectFrom('accounts').select('id').orderBy('created_at').orderBy('id').limit(1))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('accounts as admins').select('admins.id').where('admins.is_admin', '=', 1))))
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function anyAccountRowExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Forms, submissions, keys, hooks and sessions go with it (ON DELETE CASCADE). */
export async function deleteAccountRow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('accounts').where('id', '=', id).execute();
}
