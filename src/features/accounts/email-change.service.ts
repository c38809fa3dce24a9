import { randomBytes } from 'node:crypto';
import type { Config } from '../../platform/config.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { nowIso } from '../../platform/lib/time.js';
import { hashToken } from '../../platform/lib/token-hash.js';
import type { NotificationService } from '../notifications/notification.service.js';
import type { AccountService, IdentityProof } from './account.service.js';
import { consumeEmailChange, deleteEmailChange, findLiveEmailChangeByTokenHash, findLiveEmailChangeOfAccount, upsertEmailChange } from './email-change.repository.js';

export const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60 * 1000;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,100}$/;

export interface PendingEmailChange {
  newEmail: string;
  expiresAt: string;
}

export type EmailChangeRequest = { changed: true; email: string } | { changed: false; pending: PendingEmailChange; oldEmail: string };

/**
 * Changing an account's email: the new address confirms a single-use link (a POST from its page:
 * mail scanners only GET) before anything changes, and the old address is told at once. Without
 * SMTP_URL nothing can be sent, so the change is made at once, as before email existed.
 */
export class EmailChangeService {
  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly accounts: AccountService,
    private readonly notifications: NotificationService,
    private readonly wakeOutbox: () => void,
  ) {}

  async requestChange(accountId: string, email: string, proof: IdentityProof): Promise<EmailChangeRequest> {
    const newEmail = await this.accounts.checkEmailChange(accountId, email, proof);
    const account = await this.accounts.getUser(accountId);
    if (!this.notifications.emailEnabled) {
      // Nothing was sent, so nothing shows the new address is the user's.
      await this.accounts.setEmail(accountId, newEmail, { confirmed: false });
      return { changed: true, email: newEmail };
    }
    const token = randomBytes(32).toString('base64url');
    const now = nowIso();
    const expiresAt = new Date(Date.parse(now) + EMAIL_CHANGE_TTL_MS).toISOString();
    await this.handle.db.transaction().execute(async (trx) => {
      await upsertEmailChange(trx, { user_id: accountId, new_email: newEmail, token_hash: hashToken(token), created_at: now, expires_at: expiresAt });
      await this.notifications.queueEmailChangeEmails(trx, { oldEmail: account.email, newEmail, link: `${this.config.baseUrl}/dashboard/confirm-email/${token}`, now });
    });
    this.wakeOutbox();
    return { changed: false, pending: { newEmail, expiresAt }, oldEmail: account.email };
  }

  async findPending(accountId: string): Promise<PendingEmailChange | undefined> {
    const row = await findLiveEmailChangeOfAccount(this.handle.db, accountId, nowIso());
    return row && { newEmail: row.new_email, expiresAt: row.expires_at };
  }

  async cancel(accountId: string): Promise<void> {
    await deleteEmailChange(this.handle.db, accountId);
  }

  /** The change a live link names, without using it (the page that asks to confirm). */
  async findChangeOfToken(token: string): Promise<PendingEmailChange | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const row = await findLiveEmailChangeByTokenHash(this.handle.db, hashToken(token), nowIso());
    return row && { newEmail: row.new_email, expiresAt: row.expires_at };
  }

  /**
   * Confirms the link: the account's email becomes the new address, confirmed (its owner opened
   * what was sent to it). Undefined when the link is
   * used up, replaced or expired; a validation error when another account took the address since.
   */
  async confirm(token: string): Promise<{ email: string } | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    return this.handle.db.transaction().execute(async (trx) => {
      const row = await consumeEmailChange(trx, hashToken(token), nowIso());
      if (!row) return undefined;
      await this.accounts.setEmail(row.user_id, row.new_email, { confirmed: true }, trx);
      return { email: row.new_email };
    });
  }
}
