import type { AccountService } from '../accounts/account.service.js';
import type { Account } from '../accounts/account.types.js';
import type { AuditService } from '../audit/audit.service.js';
import type { Config } from '../../platform/config.js';
import type { Executor } from '../../platform/db/database.js';
import { validationFailed } from '../../platform/errors.js';
import { nowIso } from '../../platform/lib/time.js';
import { findInstanceSetting, listAccountOverviewRows, upsertInstanceSetting } from './admin.repository.js';

export interface AccountOverview {
  id: string;
  email: string;
  planId: string;
  /** The account's owner is the instance admin. */
  ownerIsAdmin: boolean;
  disabled: boolean;
  createdAt: string;
  forms: number;
  submissions: number;
}

export interface LastPurge {
  at: string;
  deleted: number;
}

const SIGNUP_SETTING = 'dashboard_signup';
const LAST_PURGE_SETTING = 'last_purge';

/**
 * The instance admin's powers: every account at a glance, plan, disable, delete, and
 * sign-up opened or closed in the database, overriding DASHBOARD_SIGNUP for every instance.
 */
export class AdminService {
  constructor(
    private readonly db: Executor,
    private readonly config: Pick<Config, 'dashboardSignup'>,
    private readonly accounts: AccountService,
    private readonly audit?: AuditService,
  ) {}

  async listAccounts(): Promise<AccountOverview[]> {
    return (await listAccountOverviewRows(this.db)).map((r) => ({
      id: r.id,
      email: r.email,
      planId: r.plan_id,
      ownerIsAdmin: Number(r.owner_is_admin) === 1,
      disabled: r.disabled_at !== null,
      createdAt: r.created_at,
      forms: r.forms,
      submissions: r.submissions,
    }));
  }

  /** An admin never disables or deletes their own account from the Admin page (they would lock themselves out). */
  private refuseSelf(adminId: string, accountId: string, what: string): void {
    if (adminId === accountId) throw validationFailed(`You cannot ${what} your own account here.`, { account: `You cannot ${what} your own account here.` });
  }

  /** The plan change is recorded in the affected account's log (by AccountService, as for the CLI). */
  async setPlan(accountId: string, plan: string): Promise<Account> {
    return this.accounts.setPlan(accountId, plan);
  }

  async setDisabled(adminId: string, accountId: string, disabled: boolean): Promise<Account> {
    if (disabled) this.refuseSelf(adminId, accountId, 'disable');
    return this.accounts.setDisabled(accountId, disabled);
  }

  async deleteAccount(adminId: string, accountId: string): Promise<void> {
    this.refuseSelf(adminId, accountId, 'delete');
    // The deleted account's log goes with it: the event stays in the admin's own account.
    await this.accounts.deleteAccountByOperator(accountId, adminId);
  }

  /** Sign-up as the admin last set it, else DASHBOARD_SIGNUP. */
  async signupOpen(): Promise<boolean> {
    return (await this.signupMode()) === 'open';
  }

  /** `open`, `invite` (only with a live invitation) or `closed` (accounts only through the CLI). */
  async signupMode(): Promise<'open' | 'invite' | 'closed'> {
    const stored = await findInstanceSetting(this.db, SIGNUP_SETTING);
    const mode = stored ?? this.config.dashboardSignup;
    return mode === 'open' || mode === 'invite' ? mode : 'closed';
  }

  /** True when the admin has set sign-up, so DASHBOARD_SIGNUP no longer decides. */
  async signupSetInDatabase(): Promise<boolean> {
    return (await findInstanceSetting(this.db, SIGNUP_SETTING)) !== undefined;
  }

  async setSignupOpen(open: boolean, adminAccountId?: string): Promise<void> {
    await this.setSignupMode(open ? 'open' : 'closed', adminAccountId);
  }

  /** Sign-up belongs to the whole instance, so its change is recorded in the admin's own account. */
  async setSignupMode(mode: 'open' | 'invite' | 'closed', adminAccountId?: string): Promise<void> {
    const from = await this.signupMode();
    await this.db.transaction().execute(async (trx) => {
      await upsertInstanceSetting(trx, SIGNUP_SETTING, mode, nowIso());
      if (adminAccountId === undefined || from === mode) return;
      await this.audit?.record(trx, adminAccountId, 'signup.mode_changed', undefined, { from, to: mode });
    });
  }

  /** An account made by the admin for someone (the Admin page's "Create an account"). */
  async createAccount(input: { email: string; password?: string | undefined }): Promise<Account> {
    return this.accounts.createAccount({ email: input.email, emailConfirmed: true, ...(input.password ? { password: input.password } : {}) });
  }

  async recordPurge(deleted: number, at = nowIso()): Promise<void> {
    await recordLastPurge(this.db, deleted, at);
  }

  async lastPurge(): Promise<LastPurge | undefined> {
    const raw = await findInstanceSetting(this.db, LAST_PURGE_SETTING);
    if (!raw) return undefined;
    try {
      const value = JSON.parse(raw) as LastPurge;
      return typeof value.at === 'string' && typeof value.deleted === 'number' ? value : undefined;
    } catch {
      return undefined;
    }
  }
}

/** When the retention purge last ran and what it deleted, whichever instance ran it (the Admin page shows it). */
export async function recordLastPurge(db: Executor, deleted: number, at = nowIso()): Promise<void> {
  await upsertInstanceSetting(db, LAST_PURGE_SETTING, JSON.stringify({ at, deleted }), at);
}
