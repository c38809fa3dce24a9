import type { Executor } from '../../platform/db/database.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import { nowIso } from '../../platform/lib/time.js';
import { addressHash, addressHashOfToken } from './confirmation.js';
import { countSuppressions, deleteSuppression, insertSuppression } from './confirmation.repository.js';

/** The instance's suppression list: addresses that get no confirmation email (docs/email.md, Unsubscribing). */
export class SuppressionService {
  constructor(
    private readonly db: Executor,
    private readonly secrets: InstanceSecretService,
  ) {}

  /** Whether an unsubscribe token is one this instance made. */
  async isValidToken(token: string): Promise<boolean> {
    return addressHashOfToken(await this.secrets.getSecret('unsubscribe'), token) !== undefined;
  }

  /** Adds the token's address; false when the token is not valid. Repeating it is harmless. */
  async unsubscribe(token: string): Promise<boolean> {
    const hash = addressHashOfToken(await this.secrets.getSecret('unsubscribe'), token);
    if (!hash) return false;
    await insertSuppression(this.db, { address_hash: hash, reason: 'unsubscribe', created_at: nowIso() });
    return true;
  }

  /** The operator lets an address receive confirmations again. */
  remove(address: string): Promise<boolean> {
    return deleteSuppression(this.db, addressHash(address));
  }

  count(): Promise<number> {
    return countSuppressions(this.db);
  }
}
