import { isUniqueViolation, type Dialect, type Executor, type Trx } from '../../platform/db/database.js';
import type { InvitationRow } from '../../platform/db/schema.js';
import type { Invitation, Member, MembershipSummary, Role, WaitingInvitation } from './member.types.js';

export function invitationRowToInvitation(row: InvitationRow, now: string): Invitation {
  const state = row.accepted_at ? 'accepted' : row.revoked_at ? 'revoked' : row.expires_at <= now ? 'expired' : 'pending';
  return { id: row.id, accountId: row.account_id, email: row.email, role: row.role as Role, createdAt: row.created_at, expiresAt: row.expires_at, state };
}

/**
 * Holds the account's row until the transaction ends, so changes to one account's team run one
 * after another on PostgreSQL: each reads the roles and counts it checks only once the change
 * before it committed. `no key update` leaves rows that merely reference the account (a session,
 * a submission) free to be written meanwhile. SQLite needs no lock: its transactions begin
 * IMMEDIATE, so only one writes at a time. False when the account is gone.
 */
export async function lockAccountTeam(trx: Trx, dialect: Dialect, accountId: string): Promise<boolean> {
  const query = trx.selectFrom('accounts').select('id').where('id', '=', accountId);
  return (await (dialect === 'postgres' ? query.forNoKeyUpdate() : query).executeTakeFirst()) !== undefined;
}

export async function listMemberRows(db: Executor, accountId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'users.display_name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.account_id', '=', accountId)
    .orderBy('memberships.created_at')
    .orderBy('users.email')
    .execute();
  return rows.map((r) => ({ userId: r.id, email: r.email, displayName: r.display_name, role: r.role as Role, createdAt: r.created_at }));
}

/** Invitations the account made since `since`, whatever became of them (the daily cap counts them all). */
export async function countInvitationsSince(db: Executor, accountId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findMemberRole(db: Executor, accountId: string, userId: string): Promise<Role | undefined> {
  const row = await db.selectFrom('memberships').select('role').where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role as Role | undefined;
}

/** The user's accounts, the ones they own first, then oldest membership first. */
export async function listMembershipsOfUser(db: Executor, userId: string): Promise<MembershipSummary[]> {
  const rows = await db
    .selectFrom('memberships as mine')
    .innerJoin('memberships as owner', (join) => join.onRef('owner.account_id', '=', 'mine.account_id').on('owner.role', '=', 'owner'))
    .innerJoin('users as owner_user', 'owner_user.id', 'owner.user_id')
    .innerJoin('accounts', 'accounts.id', 'mine.account_id')
    .select(['mine.account_id', 'mine.role', 'owner_user.email', 'accounts.team_name', 'mine.created_at'])
    .where('mine.user_id', '=', userId)
    .orderBy('mine.created_at')
    .orderBy('mine.account_id')
    .execute();
  const summaries = rows.map((r) => ({ accountId: r.account_id, accountEmail: r.email, teamName: r.team_name ?? r.email, role: r.role as Role }));
  return [...summaries.filter((m) => m.role === 'owner'), ...summaries.filter((m) => m.role !== 'owner')];
}

/** False when the user is a member already. */
export async function insertMembership(db: Executor, row: { account_id: string; user_id: string; role: Role; created_at: string }): Promise<boolean> {
  try {
    await db.insertInto('memberships').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function updateMemberRole(db: Executor, accountId: string, userId: string, role: Role): Promise<boolean> {
  const result = await db.updateTable('memberships').set({ role }).where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteMembership(db: Executor, accountId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('memberships').where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertInvitation(db: Executor, row: InvitationRow): Promise<void> {
  await db.insertInto('invitations').values(row).execute();
}

export async function findInvitationRowByTokenHash(db: Executor, tokenHash: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Who made the invitation, when a member did (not the CLI) and is still a user. */
export async function findInviterOfInvitation(db: Executor, invitationId: string): Promise<{ email: string; displayName: string } | undefined> {
  const row = await db
    .selectFrom('invitations')
    .innerJoin('users', 'users.id', 'invitations.invited_by')
    .select(['users.email', 'users.display_name'])
    .where('invitations.id', '=', invitationId)
    .executeTakeFirst();
  return row && { email: row.email, displayName: row.display_name };
}

export async function listPendingInvitationRows(db: Executor, accountId: string, now: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function findInvitationRowById(db: Executor, id: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Live invitations to this address in any account, oldest first, with the inviting account's
 * name; none from an account `userId` belongs to already.
 */
export async function listLiveInvitationsForEmail(db: Executor, email: string, now: string, userId: string | undefined): Promise<WaitingInvitation[]> {
  let query = db
    .selectFrom('invitations')
    .innerJoin('accounts', 'accounts.id', 'invitations.account_id')
    .select(['invitations.id', 'invitations.account_id', 'accounts.email as account_email', 'accounts.team_name', 'invitations.role', 'invitations.expires_at'])
    .where('invitations.email', '=', email)
    .where('invitations.accepted_at', 'is', null)
    .where('invitations.revoked_at', 'is', null)
    .where('invitations.expires_at', '>', now);
  if (userId !== undefined) {
    query = query.where((eb) =>
      eb.not(eb.exists(eb.selectFrom('memberships').select('memberships.user_id').whereRef('memberships.account_id', '=', 'invitations.account_id').where('memberships.user_id', '=', userId))),
    );
  }
  const rows = await query.orderBy('invitations.created_at').orderBy('invitations.id').execute();
  return rows.map((r) => ({ id: r.id, accountId: r.account_id, accountEmail: r.account_email, teamName: r.team_name ?? r.account_email, role: r.role as Role, expiresAt: r.expires_at }));
}

/** Marks a live invitation accepted (single use: a second acceptance finds none). */
export async function markInvitationAccepted(db: Executor, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ accepted_at: now })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function markInvitationRevoked(db: Executor, accountId: string, id: string, now: string): Promise<InvitationRow | undefined> {
  return db
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
