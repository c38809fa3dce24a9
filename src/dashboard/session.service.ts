import { createHash, randomBytes } from 'node:crypto';
import type { Executor } from '../db/database.js';
import { nowIso } from '../lib/time.js';
import { deleteExpiredSessions, deleteSession, deleteSessionsOfAccount, findLiveSessionAccountId, insertSession } from './session.repository.js';

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Dashboard sessions. The token lives only in the owner's cookie; the database keeps its hash,
 * so a leaked database does not hand out sessions. Every login makes a new token.
 */
export class SessionService {
  constructor(private readonly db: Executor) {}

  async startSession(accountId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = nowIso();
    await deleteExpiredSessions(this.db, now);
    await insertSession(this.db, {
      id: hashToken(token),
      account_id: accountId,
      csrf_secret: randomBytes(16).toString('hex'),
      created_at: now,
      expires_at: new Date(Date.parse(now) + SESSION_TTL_MS).toISOString(),
    });
    return token;
  }

  async findAccountIdOfSession(token: string | undefined): Promise<string | undefined> {
    if (!token || token.length > 100) return undefined;
    return findLiveSessionAccountId(this.db, hashToken(token), nowIso());
  }

  async endSession(token: string | undefined): Promise<void> {
    if (token) await deleteSession(this.db, hashToken(token));
  }

  /** After a password reset: every session of the account ends. */
  async endAllSessions(accountId: string): Promise<void> {
    await deleteSessionsOfAccount(this.db, accountId);
  }
}
