import { randomBytes } from 'node:crypto';
import type { AccountService } from './account.service.js';
import type { Config } from '../../platform/config.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { validationFailed } from '../../platform/errors.js';
import { nowIso } from '../../platform/lib/time.js';
import { hashToken } from '../../platform/lib/token-hash.js';
import type { NotificationService } from '../notifications/notification.service.js';
import { consumePasswordReset, findLivePasswordReset, insertPasswordReset } from './password-reset.repository.js';
import type { SessionService } from './session.service.js';

const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
/** A welcome's link to choose a first password: the person may read it days later. */
const WELCOME_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,100}$/;

/** "Forgot password?": a single-use link valid one hour, sent by email. */
export class PasswordResetService {
  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
    private readonly notifications: NotificationService,
    private readonly wakeOutbox: () => void,
  ) {}

  /**
   * Queues a reset link when the address has an account. Callers answer the same either way, so
   * the answer never tells whether an account exists.
   */
  async requestReset(email: string): Promise<void> {
    if (!this.notifications.emailEnabled) return;
    const account = await this.accounts.findUserByEmail(email);
    if (!account) return;
    const token = randomBytes(32).toString('base64url');
    const now = nowIso();
    await this.handle.db.transaction().execute(async (trx) => {
      await insertPasswordReset(trx, {
        token_hash: hashToken(token),
        user_id: account.id,
        created_at: now,
        expires_at: new Date(Date.parse(now) + PASSWORD_RESET_TTL_MS).toISOString(),
      });
      await this.notifications.queuePasswordResetEmail(trx, account.email, `${this.config.baseUrl}/dashboard/reset-password/${token}`, now);
    });
    this.wakeOutbox();
  }

  /**
   * Welcomes someone the instance's admin just made an account for: with passwords on, a link to
   * choose theirs (the reset page, valid 7 days); with single sign-on only, where to sign in.
   * False when email is off or there is no such user.
   */
  async sendWelcome(email: string): Promise<boolean> {
    if (!this.notifications.emailEnabled) return false;
    const user = await this.accounts.findUserByEmail(email);
    if (!user) return false;
    const now = nowIso();
    const signInUrl = `${this.config.baseUrl}/dashboard/login`;
    const singleSignOn = this.config.oidc?.displayName;
    await this.handle.db.transaction().execute(async (trx) => {
      let setPasswordLink: string | undefined;
      if (this.config.passwordLogin) {
        const token = randomBytes(32).toString('base64url');
        await insertPasswordReset(trx, {
          token_hash: hashToken(token),
          user_id: user.id,
          created_at: now,
          expires_at: new Date(Date.parse(now) + WELCOME_LINK_TTL_MS).toISOString(),
        });
        setPasswordLink = `${this.config.baseUrl}/dashboard/reset-password/${token}`;
      }
      await this.notifications.queueWelcomeEmail(trx, user.email, { signInUrl, setPasswordLink, linkValidFor: '7 days', singleSignOn }, now);
    });
    this.wakeOutbox();
    return true;
  }

  async isLive(token: string): Promise<boolean> {
    return TOKEN_PATTERN.test(token) && (await findLivePasswordReset(this.handle.db, hashToken(token), nowIso())) !== undefined;
  }

  /**
   * Sets the new password, confirms the address the link was sent to and ends every session of
   * the account; false when the link is used up or expired.
   */
  async resetPassword(token: string, password: string): Promise<boolean> {
    if (password.length < 8 || password.length > 1024) {
      throw validationFailed('The password is not valid.', { password: 'must be 8 to 1024 characters' });
    }
    if (!TOKEN_PATTERN.test(token)) return false;
    const accountId = await this.handle.db.transaction().execute((trx) => consumePasswordReset(trx, hashToken(token), nowIso()));
    if (!accountId) return false;
    await this.accounts.setPassword(accountId, password);
    // The link went to the user's address (an email change ends older links), so it is theirs.
    await this.accounts.confirmEmail(accountId);
    await this.sessions.revokeOtherSessions(accountId, undefined);
    return true;
  }
}
