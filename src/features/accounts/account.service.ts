import type { AuditService } from '../audit/audit.service.js';
import type { AuditAction, AuditActor } from '../audit/audit.types.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Config, Plan } from '../../platform/config.js';
import type { Executor } from '../../platform/db/database.js';
import { AppError, notFound, validationFailed } from '../../platform/errors.js';
import { newId } from '../../platform/lib/ids.js';
import { nowIso } from '../../platform/lib/time.js';
import {
  accountRowToAccount,
  anyAccountRowExists,
  findAccountRowByEmail,
  hasAnyAccountRow,
  findAccountRowById,
  insertAccount,
  deleteAccountRow,
  updateAccountDisabledAt,
  updateAccountTimeZone,
  updateAccountPlan,
  updateAccountTeamName,
} from './account.repository.js';
import type { Account, User } from './account.types.js';
import {
  deleteUserWithoutMemberships,
  findAccountIdsOfUser,
  findUserAccountIdsByEmail,
  findUserRowByEmail,
  findUserRowById,
  insertOwnerMembership,
  insertUser,
  promoteFirstUserIfNoAdmin,
  markUserEmailConfirmed,
  updateUserDisplayName,
  updateUserIsAdmin,
  updateUserEmail,
  updateUserPasswordHash,
  userRowToUser,
} from './user.repository.js';
import { plans } from './account.types.js';
import { hashPassword, verifyPassword } from './password.js';
import { deleteUnusedPasswordResetsOfUser } from './password-reset.repository.js';

/** How recent a single sign-on must be to stand in for the password of a user who has none. */
export const FRESH_SIGN_ON_MS = 5 * 60_000;

/** What a user shows before a change only they may make: their password, or a recent single sign-on. */
export interface IdentityProof {
  password: string;
  /** When the session's user last signed on at the provider; null: never in this session. */
  signedOnAt: string | null;
}

/** The plan of an instance's first account (its admin) when none is given. */
export const FIRST_ACCOUNT_PLAN: Plan = 'business';

const newAccountSchema = z.object({
  email: z.email().max(254).transform((e) => e.toLowerCase()),
  displayName: z.string().trim().min(1).max(200).optional(),
  planId: z.enum(plans).optional(),
  password: z.string().min(8).max(1024).optional(),
  /** The operator made the person (CLI, Admin page, ADMIN_EMAIL) or a provider vouched for the address. */
  emailConfirmed: z.boolean().optional(),
});

/** The form in which emails are stored and compared. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

let dummyHash: Promise<string> | undefined;
/** A hash no password matches, made once with the same parameters as real ones. */
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64'));
  return dummyHash;
}

export type NewAccountInput = z.input<typeof newAccountSchema>;

/** Deletes what an account owns before the account row goes (its forms, through their lifecycle). */
export type OwnedDataEraser = (accountId: string) => Promise<void>;

export class AccountService {
  constructor(
    private readonly db: Executor,
    private readonly config: Pick<Config, 'defaultPlan'>,
    private readonly eraseOwnedData: OwnedDataEraser = async () => {},
    private readonly audit?: AuditService,
  ) {}

  async createAccount(input: NewAccountInput): Promise<Account> {
    const parsed = newAccountSchema.safeParse(input);
    if (!parsed.success) {
      const fieldErrors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
      throw validationFailed('The account details are not valid.', fieldErrors);
    }
    const { email, displayName, planId, password, emailConfirmed } = parsed.data;
    if (await findUserRowByEmail(this.db, email)) {
      throw validationFailed('An account with this email already exists.', { email: 'already registered' });
    }
    const row = {
      id: newId('acc'),
      email,
      display_name: displayName ?? email.split('@')[0]!,
      plan_id: planId ?? this.config.defaultPlan,
      password_hash: password ? await hashPassword(password) : null,
      created_at: nowIso(),
      disabled_at: null,
      time_zone: null,
      team_name: null,
    };
    // One transaction: an admin made first is never left on DEFAULT_PLAN by a crash in between.
    const promoted = await this.db.transaction().execute(async (trx) => {
      // The account's owner is a user made with it, under the same ID.
      const confirmedAt = emailConfirmed ? row.created_at : null;
      const user = { id: row.id, email, display_name: row.display_name, password_hash: row.password_hash, created_at: row.created_at, email_confirmed_at: confirmedAt };
      if (!(await insertAccount(trx, row)) || !(await insertUser(trx, user))) {
        throw validationFailed('An account with this email already exists.', { email: 'already registered' });
      }
      await insertOwnerMembership(trx, row.id, row.id, row.created_at);
      // The first account of an instance is its admin; later ones are not. On one's own server
      // nothing is held back from its admin: without a plan chosen for it, it gets the top one.
      if ((await promoteFirstUserIfNoAdmin(trx)) !== row.id) return false;
      if (planId === undefined) await updateAccountPlan(trx, row.id, FIRST_ACCOUNT_PLAN);
      return true;
    });
    return promoted ? this.getAccount(row.id) : accountRowToAccount(row);
  }

  /**
   * The first account from the environment (ADMIN_EMAIL, docs/configuration.md): made only when
   * the instance has no account at all, so a restart, a second replica or a later change of the
   * variables never makes another or resets a password. Returns the account when it made it.
   */
  async bootstrapAdmin(admin: { email: string; password: string }): Promise<Account | undefined> {
    if (await anyAccountRowExists(this.db)) return undefined;
    try {
      // No plan given: as the first account it becomes the admin on the top plan.
      return await this.createAccount({ email: admin.email, password: admin.password, emailConfirmed: true });
    } catch (err) {
      // Another replica starting at the same moment made it first.
      if (err instanceof AppError && err.fieldErrors?.email === 'already registered') return undefined;
      throw err;
    }
  }

  async findAccount(id: string): Promise<Account | undefined> {
    const row = await findAccountRowById(this.db, id);
    return row && accountRowToAccount(row);
  }

  async getAccount(id: string): Promise<Account> {
    const account = await this.findAccount(id);
    if (!account) throw notFound('Account');
    return account;
  }

  /** False on a fresh instance: the dashboard then opens on sign-up. */
  async hasAnyAccount(): Promise<boolean> {
    return hasAnyAccountRow(this.db);
  }

  /** Operators name accounts by ID or by email. */
  async getAccountByIdOrEmail(idOrEmail: string): Promise<Account> {
    const row = idOrEmail.includes('@')
      ? await findAccountRowByEmail(this.db, idOrEmail.toLowerCase())
      : await findAccountRowById(this.db, idOrEmail);
    if (!row) throw notFound('Account');
    return accountRowToAccount(row);
  }

  async setPlan(idOrEmail: string, plan: string): Promise<Account> {
    if (!(plans as readonly string[]).includes(plan)) {
      throw validationFailed(`Unknown plan "${plan}".`, { plan: `must be one of ${plans.join(', ')}` });
    }
    const account = await this.getAccountByIdOrEmail(idOrEmail);
    await this.db.transaction().execute(async (trx) => {
      await updateAccountPlan(trx, account.id, plan as Plan);
      if (account.planId === plan) return;
      await this.audit?.record(trx, account.id, 'account.plan_changed', { type: 'account', id: account.id, label: account.email }, { from: account.planId, to: plan });
    });
    return { ...account, planId: plan as Plan };
  }

  /**
   * Makes a user the instance's admin, or not (`formgate accounts set-admin`). The user is named
   * by their email, or by an account's ID (its owner). Returns the user and the account they own
   * under that name, if any.
   */
  async setAdmin(idOrEmail: string, isAdmin: boolean): Promise<{ user: User; account: Account | undefined }> {
    const byEmail = idOrEmail.includes('@') ? await findUserRowByEmail(this.db, normalizeEmail(idOrEmail)) : undefined;
    const account = byEmail ? await this.findAccountByEmail(byEmail.email) : await this.getAccountByIdOrEmail(idOrEmail);
    const row = byEmail ?? (account && (await findUserRowByEmail(this.db, account.email)));
    if (!row) throw notFound('User');
    await updateUserIsAdmin(this.db, row.id, isAdmin);
    return { user: { ...userRowToUser(row), isAdmin }, account };
  }

  /** A disabled account cannot log in and its API keys answer 401; enabling gives both back. */
  async setDisabled(id: string, disabled: boolean): Promise<Account> {
    const account = await this.getAccount(id);
    await this.db.transaction().execute(async (trx) => {
      await updateAccountDisabledAt(trx, account.id, disabled ? nowIso() : null);
      if (account.disabled === disabled) return;
      await this.audit?.record(trx, account.id, disabled ? 'account.disabled' : 'account.enabled', { type: 'account', id: account.id, label: account.email });
    });
    return { ...account, disabled };
  }

  /**
   * Deletes an account and everything it owns without its password: the instance admin's
   * action. The deleted account's own log goes with it, so the event is written to `auditAccountId`
   * (the admin's account), in the transaction that deletes the account row.
   */
  async deleteAccountByOperator(id: string, auditAccountId?: string): Promise<void> {
    const account = await this.getAccount(id);
    await this.removeAccount(account, auditAccountId);
  }

  /** Deletes the account with what it owns; its owner goes too when they belong to no other account. */
  private async removeAccount(account: Account, auditAccountId?: string): Promise<void> {
    const owner = await findUserRowByEmail(this.db, account.email);
    await this.eraseOwnedData(account.id);
    await this.db.transaction().execute(async (trx) => {
      await deleteAccountRow(trx, account.id);
      if (owner) await deleteUserWithoutMemberships(trx, owner.id);
      if (auditAccountId === undefined || auditAccountId === account.id) return;
      await this.audit?.record(trx, auditAccountId, 'account.deleted', { type: 'account', id: account.id, label: account.email }, { plan: account.planId });
    });
  }

  /** Records a change of the user's own login (password, email) in the log of every account they belong to. */
  private async recordUserChange(trx: Executor, user: { id: string; email: string }, action: AuditAction, details?: Record<string, unknown>, actor?: AuditActor): Promise<void> {
    if (!this.audit) return;
    for (const accountId of await findAccountIdsOfUser(trx, user.id)) {
      await this.audit.record(trx, accountId, action, { type: 'user', id: user.id, label: user.email }, details, actor);
    }
  }

  /**
   * Names the team (the account as its members see it); empty gives it back its owner's email.
   * The caller checks that the actor is the owner.
   */
  async setTeamName(accountId: string, teamName: string): Promise<Account> {
    const name = teamName.trim();
    if (name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) {
      throw validationFailed('The team name is not valid.', { teamName: 'must be at most 100 characters, on one line' });
    }
    const before = await this.getAccount(accountId);
    await this.db.transaction().execute(async (trx) => {
      await updateAccountTeamName(trx, accountId, name === '' ? null : name);
      const after = name === '' ? before.email : name;
      if (after !== before.teamName) {
        await this.audit?.record(trx, accountId, 'account.renamed', { type: 'account', id: accountId, label: after }, { from: before.teamName, to: after });
      }
    });
    return this.getAccount(accountId);
  }

  /** Sets the user's name (the account's owner's name is its owner's). */
  async setDisplayName(userId: string, displayName: string): Promise<User> {
    const name = displayName.trim();
    if (name.length < 1 || name.length > 200) {
      throw validationFailed('The display name is not valid.', { displayName: 'must be 1 to 200 characters' });
    }
    await updateUserDisplayName(this.db, userId, name);
    return this.getUser(userId);
  }

  /** An account by its owner's email (the oldest, should they own several). */
  async findAccountByEmail(email: string): Promise<Account | undefined> {
    const row = await findAccountRowByEmail(this.db, normalizeEmail(email));
    return row && accountRowToAccount(row);
  }

  async findUser(id: string): Promise<User | undefined> {
    const row = await findUserRowById(this.db, id);
    return row && userRowToUser(row);
  }

  async getUser(id: string): Promise<User> {
    const user = await this.findUser(id);
    if (!user) throw notFound('User');
    return user;
  }

  /** A user by email, for flows that must not reveal whether one exists (password reset, invitations). */
  async findUserByEmail(email: string): Promise<User | undefined> {
    const row = await findUserRowByEmail(this.db, normalizeEmail(email));
    return row && userRowToUser(row);
  }

  /**
   * A user who joins an account by invitation (not an account of their own); `password`
   * undefined: they sign in by single sign-on. Refused when the email is taken.
   */
  async createUser(
    input: { email: string; displayName?: string | undefined; password?: string | undefined; emailConfirmed?: boolean },
    db: Executor = this.db,
  ): Promise<User> {
    const parsed = newAccountSchema.omit({ planId: true }).safeParse(input);
    if (!parsed.success) {
      const fieldErrors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
      throw validationFailed('The details are not valid.', fieldErrors);
    }
    const { email, displayName, password, emailConfirmed } = parsed.data;
    const now = nowIso();
    const row = {
      id: newId('usr'),
      email,
      display_name: displayName ?? email.split('@')[0]!,
      password_hash: password ? await hashPassword(password) : null,
      created_at: now,
      is_admin: 0,
      email_confirmed_at: emailConfirmed ? now : null,
    };
    if (!(await insertUser(db, row))) throw validationFailed('An account with this email already exists.', { email: 'already registered' });
    return userRowToUser(row);
  }

  /** True once the user's current address was shown to be theirs (see emailConfirmed above). */
  async isEmailConfirmed(userId: string, db: Executor = this.db): Promise<boolean> {
    return ((await findUserRowById(db, userId))?.email_confirmed_at ?? null) !== null;
  }

  /** The user's current address is theirs: they used a link sent to it, or a provider vouched for it. */
  async confirmEmail(userId: string, db: Executor = this.db): Promise<void> {
    await markUserEmailConfirmed(db, userId, nowIso());
  }

  /** False for a user who signs in by single sign-on only. */
  async hasPassword(userId: string): Promise<boolean> {
    return Boolean((await findUserRowById(this.db, userId))?.password_hash);
  }

  /** Sets a password chosen through a reset link: the user acts, though no session says so. */
  async setPassword(userId: string, password: string): Promise<void> {
    if (password.length < 8 || password.length > 1024) {
      throw validationFailed('The password is not valid.', { password: 'must be 8 to 1024 characters' });
    }
    const user = await this.getUser(userId);
    const hash = await hashPassword(password);
    await this.db.transaction().execute(async (trx) => {
      await updateUserPasswordHash(trx, userId, hash);
      await this.recordUserChange(trx, user, 'user.password_changed', { method: 'reset link' }, { type: 'user', id: user.id, label: user.email });
    });
  }

  /**
   * Dashboard login. Returns undefined for an unknown email or a wrong password alike, and takes
   * as long for either: without a stored hash the password is checked against a dummy one.
   */
  async verifyCredentials(email: string, password: string): Promise<User | undefined> {
    const row = await findUserRowByEmail(this.db, normalizeEmail(email));
    if (!row?.password_hash) {
      await verifyPassword(password, await dummyPasswordHash());
      return undefined;
    }
    return (await verifyPassword(password, row.password_hash)) ? userRowToUser(row) : undefined;
  }

  /** A failed password log-in as an existing user goes in the audit log of each account they belong to. */
  async recordFailedSignIn(email: string): Promise<void> {
    const user = await findUserAccountIdsByEmail(this.db, normalizeEmail(email));
    if (!user) return;
    for (const accountId of user.accountIds) {
      await this.audit?.record(this.db, accountId, 'sign_in_failed', undefined, { method: 'password' }, { type: 'user', id: user.id, label: user.email });
    }
  }

  /** The stored password must match before email, password, linked sign-ins or the account itself change. */
  async checkCurrentPassword(id: string, password: string, field: string): Promise<void> {
    const row = await findUserRowById(this.db, id);
    if (!row) throw notFound('Account');
    if (!password) throw validationFailed('Enter your current password.', { [field]: 'Enter your current password' });
    if (!row.password_hash || !(await verifyPassword(password, row.password_hash))) {
      throw validationFailed('The current password is not right.', { [field]: 'That is not your current password' });
    }
  }

  /**
   * The user proves it is them before the email changes or the account goes: a user with a
   * password types it; a user without one (single sign-on only) is never asked for one, and signs
   * on at the provider instead, at most FRESH_SIGN_ON_MS before.
   */
  async checkIdentity(id: string, proof: IdentityProof, field: string): Promise<void> {
    if (await this.hasPassword(id)) return this.checkCurrentPassword(id, proof.password, field);
    const fresh = proof.signedOnAt !== null && Date.now() - Date.parse(proof.signedOnAt) <= FRESH_SIGN_ON_MS;
    if (!fresh) throw validationFailed('Confirm with single sign-on first: this needs a sign-on of the last 5 minutes.', { [field]: 'Confirm with single sign-on first' });
  }

  /** Checks a requested new email (valid, not the current one, free) and who asks; returns it normalised. */
  async checkEmailChange(id: string, email: string, proof: IdentityProof): Promise<string> {
    const parsed = z.email().max(254).safeParse(email.trim());
    if (!parsed.success) throw validationFailed('The email address is not valid.', { email: 'Enter an email address like name@example.com' });
    await this.checkIdentity(id, proof, 'emailPassword');
    const normalised = parsed.data.toLowerCase();
    const other = await findUserRowByEmail(this.db, normalised);
    if (other?.id === id) throw validationFailed('That is already your email.', { email: 'This is already the account\'s email' });
    if (other) throw validationFailed('Another account uses this email.', { email: 'Another account already uses this email' });
    return normalised;
  }

  /**
   * Sets a checked email (see EmailChangeService) in the caller's transaction, or in one of its
   * own; refused when another user took it meanwhile. The user acts, whether signed in or
   * following the confirmation link. `confirmed`: the new address itself opened a link. Reset
   * links still out went to the old address, so they end here: using one must never vouch for
   * the new address.
   */
  async setEmail(userId: string, email: string, options: { confirmed: boolean }, db: Executor = this.db): Promise<void> {
    const change = async (trx: Executor) => {
      const user = await findUserRowById(trx, userId);
      if (!user) throw notFound('User');
      const other = await findUserRowByEmail(trx, email);
      if (other && other.id !== userId) throw validationFailed('Another account uses this email.', { email: 'Another account already uses this email' });
      await updateUserEmail(trx, userId, email, options.confirmed ? nowIso() : null);
      await deleteUnusedPasswordResetsOfUser(trx, userId);
      if (user.email === email) return;
      await this.recordUserChange(trx, user, 'user.email_changed', { from: user.email, to: email }, { type: 'user', id: user.id, label: user.email });
    };
    await (db.isTransaction ? change(db) : db.transaction().execute(change));
  }

  /** The zone the account reads times in (an IANA name already checked by the caller). */
  async setTimeZone(id: string, timeZone: string | null): Promise<void> {
    await updateAccountTimeZone(this.db, id, timeZone);
  }

  async changePassword(id: string, currentPassword: string, newPassword: string): Promise<void> {
    if (newPassword.length < 8 || newPassword.length > 1024) {
      throw validationFailed('The new password is not valid.', { newPassword: 'Use at least 8 characters' });
    }
    await this.checkCurrentPassword(id, currentPassword, 'currentPassword');
    const user = await this.getUser(id);
    const hash = await hashPassword(newPassword);
    await this.db.transaction().execute(async (trx) => {
      await updateUserPasswordHash(trx, id, hash);
      await this.recordUserChange(trx, user, 'user.password_changed', { method: 'current password' });
    });
  }

  /** Deletes the account and everything it owns, once its owner (`userId`) typed its email and proved it is them. */
  async deleteAccount(id: string, userId: string, confirmEmail: string, proof: IdentityProof): Promise<void> {
    const account = await this.getAccount(id);
    if (confirmEmail.trim().toLowerCase() !== account.email) {
      throw validationFailed('Type the account\'s email to confirm.', { confirmEmail: `Type ${account.email} to confirm` });
    }
    await this.checkIdentity(userId, proof, 'deletePassword');
    await this.removeAccount(account);
  }
}
