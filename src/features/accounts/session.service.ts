import type { AuditService } from '../audit/audit.service.js';
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../platform/lib/token-hash.js';
import type { Executor } from '../../platform/db/database.js';
import { nowIso } from '../../platform/lib/time.js';
import { notFound } from '../../platform/errors.js';
import { describeDevice } from './device.js';
import {
  deleteExpiredSessions,
  deleteSession,
  deleteSessionOfUser,
  deleteSessionsOfUserExcept,
  findLiveSessionWithRole,
  insertSession,
  listLiveSessionRowsOfUser,
  updateSessionAccount,
  updateSessionSignedOnAt,
} from './session.repository.js';
import type { User } from './account.types.js';

/** Who a session signs in and where it acts: `role` undefined once the user left that account. */
export interface SessionState {
  user: User;
  accountId: string;
  role: string | undefined;
  /** When the user last signed on at the single sign-on provider in this session; null: never. */
  signedOnAt: string | null;
}

export interface SessionSummary {
  /** The stored hash of the token: naming a session never reveals its token. */
  id: string;
  createdAt: string;
  expiresAt: string;
  current: boolean;
  /** Browser and OS from the User-Agent the session started with. */
  device: string;
  /** The address the session started from; shown to the owner only, deleted with the session. */
  ip: string | null;
}

/** Who opened a session: kept with it, so the owner can tell sessions apart. */
export interface SessionClient {
  userAgent?: string | undefined;
  ip?: string | undefined;
  /** Who signs in and how, for the audit log. */
  email?: string;
  method?: 'password' | 'sso';
}

const MAX_USER_AGENT = 512;

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * Dashboard sessions. The token lives only in the owner's cookie; the database keeps its hash,
 * so a leaked database does not hand out sessions. Every login makes a new token.
 */
export class SessionService {
  constructor(
    private readonly db: Executor,
    private readonly audit?: AuditService,
  ) {}

  /** Signs `userId` in, acting in `accountId` (one of their accounts). */
  async startSession(userId: string, accountId: string, client: SessionClient = {}): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = nowIso();
    await deleteExpiredSessions(this.db, now);
    await this.db.transaction().execute(async (trx) => {
      await insertSession(trx, {
      id: hashToken(token),
      account_id: accountId,
      user_id: userId,
      csrf_secret: randomBytes(16).toString('hex'),
      created_at: now,
      expires_at: new Date(Date.parse(now) + SESSION_TTL_MS).toISOString(),
      user_agent: client.userAgent ? client.userAgent.slice(0, MAX_USER_AGENT) : null,
      ip: client.ip ?? null,
      signed_on_at: client.method === 'sso' ? now : null,
      });
      const actor = { type: 'user' as const, id: userId, label: client.email ?? userId, ...(client.ip ? { address: client.ip } : {}) };
      await this.audit?.record(trx, accountId, 'sign_in', undefined, { method: client.method ?? 'password' }, actor);
    });
    return token;
  }

  /**
   * The session's user, account and the user's role there, read at every request (one query), so
   * a removed member or a lowered role counts from the next request on.
   */
  async findSession(token: string | undefined): Promise<SessionState | undefined> {
    if (!token || token.length > 100) return undefined;
    const row = await findLiveSessionWithRole(this.db, hashToken(token), nowIso());
    if (!row) return undefined;
    return {
      user: { id: row.user_id, email: row.email, displayName: row.display_name, createdAt: row.created_at, isAdmin: row.is_admin === 1 },
      accountId: row.account_id,
      role: row.role ?? undefined,
      signedOnAt: row.signed_on_at,
    };
  }

  /** The session's user just proved themselves at the single sign-on provider again. */
  async markSignedOn(token: string): Promise<void> {
    await updateSessionSignedOnAt(this.db, hashToken(token), nowIso());
  }

  /** The account switcher: the session acts in another of its user's accounts from now on; not_found for an account they are no member of. */
  async switchAccount(token: string, accountId: string): Promise<void> {
    if (!(await updateSessionAccount(this.db, hashToken(token), accountId))) throw notFound('Account');
  }

  async endSession(token: string | undefined): Promise<void> {
    if (token) await deleteSession(this.db, hashToken(token));
  }

  async listSessions(userId: string, currentToken: string | undefined): Promise<SessionSummary[]> {
    const current = currentToken ? hashToken(currentToken) : undefined;
    return (await listLiveSessionRowsOfUser(this.db, userId, nowIso())).map((row) => ({
      id: row.id,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      current: row.id === current,
      device: describeDevice(row.user_agent),
      ip: row.ip,
    }));
  }

  async revokeSession(userId: string, sessionId: string): Promise<void> {
    if (!(await deleteSessionOfUser(this.db, userId, sessionId))) throw notFound('Session');
  }

  /** Ends every session of the user but the caller's own; returns how many ended. */
  async revokeOtherSessions(userId: string, currentToken: string | undefined): Promise<number> {
    return deleteSessionsOfUserExcept(this.db, userId, currentToken ? hashToken(currentToken) : '');
  }
}
