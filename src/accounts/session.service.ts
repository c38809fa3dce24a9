import type { AuditService } from '../audit/audit.service.js';
import { randomBytes } from 'node:crypto';
import { hashToken } from '../lib/token-hash.js';
import type { Executor } from '../db/database.js';
import { nowIso } from '../lib/time.js';
import { notFound } from '../errors.js';
import { describeDevice } from './device.js';
import {
  deleteExpiredSessions,
  deleteSession,
  deleteSessionOfAccount,
  deleteSessionsOfAccountExcept,
  findLiveSessionAccountId,
  insertSession,
  listLiveSessionRowsOfAccount,
} from './session.repository.js';

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

  async startSession(accountId: string, client: SessionClient = {}): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = nowIso();
    await deleteExpiredSessions(this.db, now);
    await this.db.transaction().execute(async (trx) => {
      await insertSession(trx, {
      id: hashToken(token),
      account_id: accountId,
      csrf_secret: randomBytes(16).toString('hex'),
      created_at: now,
      expires_at: new Date(Date.parse(now) + SESSION_TTL_MS).toISOString(),
      user_agent: client.userAgent ? client.userAgent.slice(0, MAX_USER_AGENT) : null,
      ip: client.ip ?? null,
      });
      const actor = { type: 'account' as const, id: accountId, label: client.email ?? accountId, ...(client.ip ? { address: client.ip } : {}) };
      await this.audit?.record(trx, accountId, 'sign_in', undefined, { method: client.method ?? 'password' }, actor);
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

  async listSessions(accountId: string, currentToken: string | undefined): Promise<SessionSummary[]> {
    const current = currentToken ? hashToken(currentToken) : undefined;
    return (await listLiveSessionRowsOfAccount(this.db, accountId, nowIso())).map((row) => ({
      id: row.id,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      current: row.id === current,
      device: describeDevice(row.user_agent),
      ip: row.ip,
    }));
  }

  async revokeSession(accountId: string, sessionId: string): Promise<void> {
    if (!(await deleteSessionOfAccount(this.db, accountId, sessionId))) throw notFound('Session');
  }

  /** Ends every session of the account but the caller's own; returns how many ended. */
  async revokeOtherSessions(accountId: string, currentToken: string | undefined): Promise<number> {
    return deleteSessionsOfAccountExcept(this.db, accountId, currentToken ? hashToken(currentToken) : '');
  }
}
