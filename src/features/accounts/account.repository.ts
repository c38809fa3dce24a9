import { isUniqueViolation, type Executor } from '../../platform/db/database.js';
import type { AccountRow, NewAccountRow } from '../../platform/db/schema.js';
import type { Plan } from '../../platform/config.js';
import type { Account } from './account.types.js';

export function accountRowToAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    planId: row.plan_id as Plan,
    createdAt: row.created_at,
    disabled: row.disabled_at !== null,
    timeZone: row.time_zone,
    teamName: row.team_name ?? row.email,
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

/**
 * Accounts with their owner's email and name (docs/teams.md): the owner is a user, and
 * after a handover of ownership the account's own columns name the previous one.
 */
function selectAccountsWithOwner(db: Executor) {
  return db
    .selectFrom('accounts')
    .leftJoin('memberships as owner', (join) => join.onRef('owner.account_id', '=', 'accounts.id').on('owner.role', '=', 'owner'))
    .leftJoin('users as owner_user', 'owner_user.id', 'owner.user_id')
    .select((eb) => [
      'accounts.id',
      eb.fn.coalesce('owner_user.email', 'accounts.email').as('email'),
      eb.fn.coalesce('owner_user.display_name', 'accounts.display_name').as('display_name'),
      'accounts.plan_id',
      'accounts.password_hash',
      'accounts.created_at',
      'accounts.disabled_at',
      'accounts.time_zone',
      'accounts.team_name',
    ]);
}

export async function findAccountRowById(db: Executor, id: string): Promise<AccountRow | undefined> {
  return selectAccountsWithOwner(db).where('accounts.id', '=', id).executeTakeFirst();
}

/** The oldest account the user with this email owns (operators name accounts by their owner's email). */
export async function findAccountRowByEmail(db: Executor, email: string): Promise<AccountRow | undefined> {
  return selectAccountsWithOwner(db).where('owner_user.email', '=', email).orderBy('accounts.created_at').orderBy('accounts.id').limit(1).executeTakeFirst();
}

export async function updateAccountTeamName(db: Executor, id: string, teamName: string | null): Promise<void> {
  await db.updateTable('accounts').set({ team_name: teamName }).where('id', '=', id).execute();
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


export async function anyAccountRowExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Forms, submissions, keys, hooks and sessions go with it (ON DELETE CASCADE). */
export async function deleteAccountRow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('accounts').where('id', '=', id).execute();
}
