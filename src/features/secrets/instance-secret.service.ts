import { randomBytes } from 'node:crypto';
import type { Executor } from '../../platform/db/database.js';
import { nowIso } from '../../platform/lib/time.js';
import { findInstanceSecretRow, insertInstanceSecretIfAbsent } from './instance-secret.repository.js';

export type InstanceSecretName = 'cursor-signing' | 'altcha-signing' | 'unsubscribe' | 'file-links' | 'csrf';

/**
 * Secrets every instance on one database must agree on (a cursor one instance issued is
 * presented to another), with no configuration variable to carry them: the first instance to
 * need one generates it and stores it; everyone reads the stored value and keeps it in memory.
 */
export class InstanceSecretService {
  private readonly cache = new Map<InstanceSecretName, Promise<Buffer>>();

  constructor(private readonly db: Executor) {}

  getSecret(name: InstanceSecretName): Promise<Buffer> {
    let secret = this.cache.get(name);
    if (!secret) {
      secret = this.loadOrCreate(name);
      // A failed load (database down) is retried on the next call, not cached.
      secret.catch(() => this.cache.delete(name));
      this.cache.set(name, secret);
    }
    return secret;
  }

  /**
   * Instances racing both insert "if absent": the database keeps the first, a later insert does
   * nothing (on PostgreSQL it waits for the first to commit), and all then read the one stored
   * value. Writing first also takes SQLite's write lock up front: a transaction that read first
   * could not upgrade to writing while another held it.
   */
  private async loadOrCreate(name: InstanceSecretName): Promise<Buffer> {
    const existing = await findInstanceSecretRow(this.db, name);
    if (existing) return Buffer.from(existing.value, 'base64url');
    const value = await this.db.transaction().execute(async (trx) => {
      await insertInstanceSecretIfAbsent(trx, { name, value: randomBytes(32).toString('base64url'), created_at: nowIso() });
      const stored = await findInstanceSecretRow(trx, name);
      if (!stored) throw new Error(`instance secret ${name} could not be stored`);
      return stored.value;
    });
    return Buffer.from(value, 'base64url');
  }
}
