import { timingSafeEqual } from 'node:crypto';
import type { AuditService } from '../audit/audit.service.js';
import type { Executor } from '../../platform/db/database.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import { newId, randomBase62 } from '../../platform/lib/ids.js';
import { nowIso } from '../../platform/lib/time.js';
import { hashToken } from '../../platform/lib/token-hash.js';
import {
  apiKeyRowToApiKey,
  findApiKeyRowByHash,
  findApiKeyRowById,
  insertApiKey,
  listApiKeyRows,
  revokeApiKeyRow,
  scopeOfRow,
  touchApiKeyRow,
} from './api-key.repository.js';
import { API_KEY_SCOPES, type ApiKey, type ApiKeyScope } from './api-key.types.js';

const API_KEY_PATTERN = /^fgk_[0-9A-Za-z]{32,128}$/;
const LAST_USED_RESOLUTION_MS = 60_000;

export interface CreatedApiKey {
  key: ApiKey;
  /** The secret, returned once and never stored. */
  apiKey: string;
}

export class ApiKeyService {
  /** key id → when last_used_at was last written; keeps auth from writing on every request. */
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly db: Executor,
    private readonly audit?: AuditService,
  ) {}

  async createApiKey(accountId: string, name = 'API key', scope: string = 'read'): Promise<CreatedApiKey> {
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 100) {
      throw validationFailed('The key name is not valid.', { name: 'must be 1 to 100 characters' });
    }
    if (!(API_KEY_SCOPES as readonly string[]).includes(scope)) {
      throw validationFailed('The key scope is not valid.', { scope: `must be one of ${API_KEY_SCOPES.join(', ')}` });
    }
    const apiKey = `fgk_${randomBase62(40)}`;
    const row = {
      id: newId('key'),
      account_id: accountId,
      name: trimmed,
      key_hash: hashToken(apiKey),
      key_prefix: apiKey.slice(0, 10),
      created_at: nowIso(),
      last_used_at: null,
      revoked_at: null,
      scope,
    };
    await this.db.transaction().execute(async (trx) => {
      await insertApiKey(trx, row);
      await this.audit?.record(trx, accountId, 'api_key.created', { type: 'api_key', id: row.id, label: row.name }, { name: row.name, prefix: row.key_prefix });
    });
    return { key: apiKeyRowToApiKey(row), apiKey };
  }

  async listApiKeys(accountId: string): Promise<ApiKey[]> {
    return (await listApiKeyRows(this.db, accountId)).map(apiKeyRowToApiKey);
  }

  /** Revokes a key; with accountId, only a key of that account (the dashboard's case). */
  async revokeApiKey(keyId: string, accountId?: string): Promise<void> {
    const revoked = await this.db.transaction().execute(async (trx) => {
      const row = await findApiKeyRowById(trx, keyId);
      if (!row || !(await revokeApiKeyRow(trx, keyId, nowIso(), accountId))) return false;
      await this.audit?.record(trx, row.account_id, 'api_key.revoked', { type: 'api_key', id: row.id, label: row.name }, { name: row.name, prefix: row.key_prefix });
      return true;
    });
    if (revoked) return;
    const row = await findApiKeyRowById(this.db, keyId);
    // Revoking twice is fine; a key of another account is as unknown as a missing one.
    if (!row || (accountId && row.account_id !== accountId)) throw notFound('API key');
  }

  /** The owning account and the key's scope for a live key, or undefined for a malformed, unknown or revoked one. */
  async authenticate(presented: string): Promise<{ accountId: string; keyId: string; scope: ApiKeyScope } | undefined> {
    if (!API_KEY_PATTERN.test(presented)) return undefined;
    const hash = hashToken(presented);
    const row = await findApiKeyRowByHash(this.db, hash);
    // The lookup is by hash already; the constant-time compare keeps the final check free of
    // early-exit timing on the stored value.
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash)) || row.revoked_at) return undefined;
    await this.touch(row.id);
    return { accountId: row.account_id, keyId: row.id, scope: scopeOfRow(row) };
  }

  private async touch(keyId: string): Promise<void> {
    const now = Date.now();
    const last = this.lastTouched.get(keyId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(keyId, now);
    await touchApiKeyRow(this.db, keyId, new Date(now).toISOString());
  }
}
