import { randomBytes } from 'node:crypto';
import type { AccountService } from '../accounts/account.service.js';
import type { User } from '../accounts/account.types.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DatabaseHandle, Executor, Trx } from '../../platform/db/database.js';
import { AppError, notFound, validationFailed } from '../../platform/errors.js';
import { newId } from '../../platform/lib/ids.js';
import { isoMinus, nowIso } from '../../platform/lib/time.js';
import { hashToken } from '../../platform/lib/token-hash.js';
import type { NotificationService } from '../notifications/notification.service.js';
import {
  countInvitationsSince,
  deleteMembership,
  findInvitationRowByTokenHash,
  findMemberRole,
  insertInvitation,
  insertMembership,
  invitationRowToInvitation,
  findInvitationRowById,
  listLiveInvitationsForEmail,
  listMemberRows,
  listMembershipsOfUser,
  listPendingInvitationRows,
  lockAccountTeam,
  markInvitationAccepted,
  markInvitationRevoked,
  updateMemberRole,
  findInviterOfInvitation,
} from './member.repository.js';
import { GRANTABLE_ROLES, type Invitation, type Member, type MembershipSummary, type Role, type WaitingInvitation } from './member.types.js';
import { roleMay, type Action } from './permissions.js';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Invitations one account may make in 24 hours. Each may send an email to an address the
 * inviter typed: the cap keeps an account (sign-up may be open) from using Formgate to mail
 * strangers in bulk, and is far above what a team adds in a day.
 */
export const INVITATIONS_PER_DAY = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A member named by their login's address (the CLI) or their user ID (the dashboard). */
export type MemberRef = { email: string } | { userId: string };

/**
 * What follows a member's rights in the account, inside the change's transaction: removed,
 * left (role null) or given another role. Other features plug in here (services.ts), so what
 * they keep for a member follows the team's changes.
 */
export type MembershipChangeListener = (trx: Trx, change: { accountId: string; userId: string; email: string; role: Role | null; reason: 'removed' | 'left' | 'role_changed' }) => Promise<void>;

/** A new invitation and its link: the link is shown once and is nowhere else (only its hash is kept). */
export interface IssuedInvitation {
  invitation: Invitation;
  url: string;
  emailed: boolean;
}

const forbidden = (message: string) => new AppError('access_denied', message);

function checkGrantable(role: string): Role {
  if (!(GRANTABLE_ROLES as readonly string[]).includes(role)) {
    throw validationFailed(`The role must be one of ${GRANTABLE_ROLES.join(', ')}.`, { role: `must be one of ${GRANTABLE_ROLES.join(', ')}` });
  }
  return role as Role;
}

function refuseUnlessPending(invitation: Invitation): void {
  if (invitation.state === 'pending') return;
  const what = invitation.state === 'expired' ? 'not used in time' : invitation.state === 'revoked' ? 'revoked' : 'used already';
  throw validationFailed(`This invitation was ${what}.`, { token: invitation.state });
}

/**
 * Members of accounts, their roles and invitations. Every change and its audit event share one
 * transaction, which first takes the account's team (lockTeam) and only then reads what it
 * checks: the rules that hold whoever acts (exactly one owner, nobody changes the owner's role,
 * the daily invitation cap) and the acting member's role. A check read before that could be
 * stale by the time the change commits, and two parallel hand-overs would make two owners.
 * Routes check the acting member's role too (permissions.ts), to answer before any work.
 */
export class MemberService {
  private readonly db: Executor;
  private readonly changeListeners: MembershipChangeListener[] = [];

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly baseUrl: string,
    private readonly accounts: AccountService,
    private readonly notifications: NotificationService,
    private readonly audit?: AuditService,
  ) {
    this.db = handle.db;
  }

  listMembers(accountId: string): Promise<Member[]> {
    return listMemberRows(this.db, accountId);
  }

  /** The members whose role allows the action (e.g. who may be assigned submissions). */
  async listMembersAllowedTo(accountId: string, action: Action): Promise<Member[]> {
    return (await listMemberRows(this.db, accountId)).filter((m) => roleMay(m.role, action));
  }

  /** Runs `listener` in the transaction of every removal, leave and role change. */
  onMembershipChanged(listener: MembershipChangeListener): void {
    this.changeListeners.push(listener);
  }

  private async membershipChanged(trx: Trx, change: Parameters<MembershipChangeListener>[1]): Promise<void> {
    for (const listener of this.changeListeners) await listener(trx, change);
  }

  async listInvitations(accountId: string): Promise<Invitation[]> {
    const now = nowIso();
    return (await listPendingInvitationRows(this.db, accountId, now)).map((row) => invitationRowToInvitation(row, now));
  }

  listMemberships(userId: string): Promise<MembershipSummary[]> {
    return listMembershipsOfUser(this.db, userId);
  }

  findRole(accountId: string, userId: string): Promise<Role | undefined> {
    return findMemberRole(this.db, accountId, userId);
  }

  private async getMember(trx: Trx, accountId: string, who: MemberRef): Promise<Member> {
    const matches = 'userId' in who ? (m: Member) => m.userId === who.userId : (m: Member) => m.email === who.email.trim().toLowerCase();
    const member = (await listMemberRows(trx, accountId)).find(matches);
    if (!member) throw notFound('Member');
    return member;
  }

  /**
   * Starts a change to the account's team: waits until no other change to it is under way, so
   * what this transaction reads next stays true until it commits.
   */
  private async lockTeam(trx: Trx, accountId: string): Promise<void> {
    if (!(await lockAccountTeam(trx, this.handle.dialect, accountId))) throw notFound('Account');
  }

  /** The acting member's role as it is now, inside the change: one demoted or removed a moment ago may no longer act. */
  private async requireRole(trx: Trx, accountId: string, userId: string, action: Action, message: string): Promise<Role> {
    const role = await findMemberRole(trx, accountId, userId);
    if (!roleMay(role, action)) throw forbidden(message);
    return role!;
  }

  /** Invites an address to the account with a role; emailed when SMTP is set, the link returned either way. */
  async invite(accountId: string, input: { email: string; role: string; invitedBy?: string }): Promise<IssuedInvitation> {
    const role = checkGrantable(input.role);
    const email = input.email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
      throw validationFailed('The email address is not valid.', { email: 'Enter an email address like name@example.com' });
    }
    const account = await this.accounts.getAccount(accountId);
    const inviter = input.invitedBy === undefined ? undefined : await this.accounts.findUser(input.invitedBy);
    const token = randomBytes(32).toString('base64url');
    const url = `${this.baseUrl}/dashboard/invite/${token}`;
    return this.db.transaction().execute(async (trx) => {
      await this.lockTeam(trx, accountId);
      if (input.invitedBy !== undefined) await this.requireRole(trx, accountId, input.invitedBy, 'members.manage', 'Your role in this account does not allow inviting people.');
      if ((await listMemberRows(trx, accountId)).some((m) => m.email === email)) {
        throw validationFailed(`${email} is a member already.`, { email: 'This person is a member already' });
      }
      const now = nowIso();
      if ((await countInvitationsSince(trx, accountId, isoMinus(now, DAY_MS))) >= INVITATIONS_PER_DAY) {
        throw new AppError('rate_limited', `An account may make ${INVITATIONS_PER_DAY} invitations a day. Try again tomorrow, or add people who have a login with the CLI.`, {
          headers: { 'Retry-After': String(DAY_MS / 1000) },
        });
      }
      const row = {
        id: newId('inv'),
        account_id: accountId,
        email,
        role,
        token_hash: hashToken(token),
        invited_by: input.invitedBy ?? null,
        created_at: now,
        expires_at: new Date(Date.parse(now) + INVITATION_TTL_MS).toISOString(),
        accepted_at: null,
        revoked_at: null,
      };
      await insertInvitation(trx, row);
      await this.audit?.record(trx, accountId, 'invitation.created', { type: 'invitation', id: row.id, label: email }, { email, role });
      const invitedBy = inviter && { name: inviter.displayName, email: inviter.email };
      const emailed = (await this.notifications.queueInvitationEmail(trx, email, { teamName: account.teamName, invitedBy, role, link: url }, now)) > 0;
      return { invitation: invitationRowToInvitation(row, now), url, emailed };
    });
  }

  /** `actorId`: the member revoking it, when one does (the dashboard). */
  async revokeInvitation(accountId: string, invitationId: string, actorId?: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.lockTeam(trx, accountId);
      if (actorId !== undefined) await this.requireRole(trx, accountId, actorId, 'members.manage', 'Your role in this account does not allow revoking invitations.');
      const row = await markInvitationRevoked(trx, accountId, invitationId, nowIso());
      if (!row) throw notFound('Invitation');
      await this.audit?.record(trx, accountId, 'invitation.revoked', { type: 'invitation', id: row.id, label: row.email }, { email: row.email, role: row.role });
    });
  }

  /** Who invited, for the invitation's page: undefined when the CLI did, or the person is gone. */
  findInviter(invitationId: string): Promise<{ email: string; displayName: string } | undefined> {
    return findInviterOfInvitation(this.db, invitationId);
  }

  /** The invitation a link names, in whatever state; undefined for a token that was never issued. */
  async findInvitationByToken(token: string): Promise<Invitation | undefined> {
    if (!token || token.length > 100) return undefined;
    const row = await findInvitationRowByTokenHash(this.db, hashToken(token));
    return row && invitationRowToInvitation(row, nowIso());
  }

  /** Accepts a live invitation for a signed-in user with the invited address; returns the account joined. */
  async accept(token: string, user: User): Promise<string> {
    const invitation = await this.findInvitationByToken(token);
    if (!invitation) throw notFound('Invitation');
    refuseUnlessPending(invitation);
    if (invitation.email !== user.email) throw forbidden(`This invitation is for ${invitation.email}; you are signed in as ${user.email}.`);
    await this.db.transaction().execute(async (trx) => this.join(trx, invitation, user));
    return invitation.accountId;
  }

  /**
   * Live invitations to an address, from accounts `userId` (when given) is not in yet. Only for
   * a person whose address is vouched for: a provider's verified email, or see listWaitingFor.
   */
  listWaitingInvitations(email: string, userId?: string): Promise<WaitingInvitation[]> {
    return listLiveInvitationsForEmail(this.db, email.trim().toLowerCase(), nowIso(), userId);
  }

  /**
   * The invitations a signed-in user may accept without their link: none until their address is
   * confirmed, as anyone may sign up with any address (they accept through the emailed link).
   */
  async listWaitingFor(user: User): Promise<WaitingInvitation[]> {
    if (!(await this.accounts.isEmailConfirmed(user.id))) return [];
    return this.listWaitingInvitations(user.email, user.id);
  }

  /**
   * Accepts one invitation by its ID for a user whose confirmed address it is: the person's own
   * click, never done for them. Inside the caller's transaction when `trx` is given (a user made
   * by single sign-on in the same step); returns the account joined.
   */
  async acceptWaiting(invitationId: string, user: User, trx?: Trx): Promise<string> {
    const run = async (db: Trx) => {
      const row = await findInvitationRowById(db, invitationId);
      const invitation = row && invitationRowToInvitation(row, nowIso());
      if (!invitation || invitation.email !== user.email) throw notFound('Invitation');
      refuseUnlessPending(invitation);
      if (!(await this.accounts.isEmailConfirmed(user.id, db))) {
        throw forbidden(`Nothing shows yet that ${user.email} is yours: accept through the link in the invitation's email.`);
      }
      await this.join(db, invitation, user);
      return invitation.accountId;
    };
    return trx ? run(trx) : this.db.transaction().execute(run);
  }

  private async join(trx: Trx, invitation: Invitation, user: User): Promise<void> {
    await this.lockTeam(trx, invitation.accountId);
    const now = nowIso();
    if (!(await markInvitationAccepted(trx, invitation.id, now))) throw validationFailed('This invitation was used already.', { token: 'accepted' });
    if (!(await insertMembership(trx, { account_id: invitation.accountId, user_id: user.id, role: invitation.role, created_at: now }))) {
      throw validationFailed('You are a member of this account already.', { token: 'member' });
    }
    const actor = { type: 'user' as const, id: user.id, label: user.email };
    await this.audit?.record(trx, invitation.accountId, 'invitation.accepted', { type: 'invitation', id: invitation.id, label: user.email }, { email: user.email, role: invitation.role }, actor);
  }

  /** Changes a member's role; the owner's role changes only by a handover. `actorId`: the member making the change, when one does (the dashboard). */
  async setRole(accountId: string, who: MemberRef, role: string, actorId?: string): Promise<Member> {
    const newRole = checkGrantable(role);
    return this.db.transaction().execute(async (trx) => {
      await this.lockTeam(trx, accountId);
      if (actorId !== undefined) await this.requireRole(trx, accountId, actorId, 'members.manage', 'Your role in this account does not allow changing roles.');
      const member = await this.getMember(trx, accountId, who);
      if (member.role === 'owner') throw forbidden('The owner\'s role changes only by handing ownership to another member.');
      await updateMemberRole(trx, accountId, member.userId, newRole);
      await this.audit?.record(trx, accountId, 'member.role_changed', { type: 'user', id: member.userId, label: member.email }, { email: member.email, from: member.role, to: newRole });
      await this.membershipChanged(trx, { accountId, userId: member.userId, email: member.email, role: newRole, reason: 'role_changed' });
      return { ...member, role: newRole };
    });
  }

  /** Removes a member (not the owner); their sessions lose the account on their next request. */
  async remove(accountId: string, who: MemberRef, actorId?: string): Promise<Member> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockTeam(trx, accountId);
      if (actorId !== undefined) await this.requireRole(trx, accountId, actorId, 'members.manage', 'Your role in this account does not allow removing members.');
      const member = await this.getMember(trx, accountId, who);
      if (member.role === 'owner') throw forbidden('The owner cannot be removed. Hand ownership to another member first.');
      await deleteMembership(trx, accountId, member.userId);
      await this.audit?.record(trx, accountId, 'member.removed', { type: 'user', id: member.userId, label: member.email }, { email: member.email, role: member.role });
      await this.membershipChanged(trx, { accountId, userId: member.userId, email: member.email, role: null, reason: 'removed' });
      return member;
    });
  }

  /** The signed-in member leaves the account; the owner must hand ownership over first. */
  async leave(accountId: string, userId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.lockTeam(trx, accountId);
      const member = (await listMemberRows(trx, accountId)).find((m) => m.userId === userId);
      if (!member) throw notFound('Membership');
      const { role } = member;
      if (role === 'owner') throw forbidden('The owner cannot leave. Hand ownership to another member first.');
      await deleteMembership(trx, accountId, userId);
      await this.audit?.record(trx, accountId, 'member.left', { type: 'user', id: userId, label: member.email }, { role });
      await this.membershipChanged(trx, { accountId, userId, email: member.email, role: null, reason: 'left' });
    });
  }

  /** Hands the account to another member, who becomes its owner; the previous owner becomes an admin. */
  async transferOwnership(accountId: string, fromUserId: string, toEmail: string): Promise<Member> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockTeam(trx, accountId);
      await this.requireRole(trx, accountId, fromUserId, 'ownership.transfer', 'Only the owner can hand ownership over.');
      const target = await this.getMember(trx, accountId, { email: toEmail });
      if (target.userId === fromUserId) throw validationFailed('You own this account already.', { email: 'This is you' });
      await updateMemberRole(trx, accountId, fromUserId, 'admin');
      await updateMemberRole(trx, accountId, target.userId, 'owner');
      await this.audit?.record(trx, accountId, 'ownership.transferred', { type: 'user', id: target.userId, label: target.email }, { to: target.email, previousRole: target.role });
      return { ...target, role: 'owner' as const };
    });
  }

  /**
   * The operator's `formgate members add`: an existing user (or a new one, when a password is
   * given) joins at once; anyone else gets an invitation.
   */
  async add(accountId: string, input: { email: string; role: string; password?: string | undefined }): Promise<{ member: Member } | { invitation: IssuedInvitation }> {
    const role = checkGrantable(input.role);
    const email = input.email.trim().toLowerCase();
    let user = await this.accounts.findUserByEmail(email);
    if (!user && input.password === undefined) return { invitation: await this.invite(accountId, { email, role }) };
    const now = nowIso();
    const member = await this.db.transaction().execute(async (trx) => {
      await this.lockTeam(trx, accountId);
      // Made by the operator, who vouches for the address.
      user ??= await this.accounts.createUser({ email, password: input.password, emailConfirmed: true }, trx);
      if (!(await insertMembership(trx, { account_id: accountId, user_id: user.id, role, created_at: now }))) {
        throw validationFailed(`${email} is a member already.`, { email: 'This person is a member already' });
      }
      await this.audit?.record(trx, accountId, 'member.added', { type: 'user', id: user.id, label: email }, { email, role });
      return { userId: user.id, email: user.email, displayName: user.displayName, role, createdAt: now };
    });
    return { member };
  }
}
