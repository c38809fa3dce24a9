import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../../platform/db/database.js';
import type { LeasedTable } from './outbox.types.js';
import { renewLeases, takeBackExpiredLeases } from './outbox-upkeep.repository.js';


/**
 * How long a claim holds an item without being renewed. The dispatcher renews its live claims
 * every third of it (and takes back expired ones then), so only a process that died (or stalled for longer) loses one; its items then
 * go back to `pending` and are sent by whichever instance claims them next. The only case where a
 * receiver may see a message twice: the dead process may have sent it before dying.
 */
export const LEASE_MS = 30_000;

/**
 * The one way abandoned work is taken back, for every channel: claims carry this instance's id
 * and time; live ones are renewed, expired ones return to pending.
 */
export class Leases {
  private checking: Promise<number> | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
    private readonly tables: readonly LeasedTable[],
    readonly instance: string,
    readonly leaseMs: number = LEASE_MS,
  ) {}

  /** Renews this instance's claims and takes back expired ones (one run at a time); resolves to how many came back. */
  maintain(): Promise<number> {
    this.checking ??= this.run(Date.now()).finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Resolves once a run in progress, if any, has finished (shutdown). */
  async idle(): Promise<void> {
    await this.checking;
  }

  private async run(now: number): Promise<number> {
    let takenBack = 0;
    const at = new Date(now).toISOString();
    const expiredBefore = new Date(now - this.leaseMs).toISOString();
    for (const table of this.tables) {
      try {
        await renewLeases(this.handle.db, this.handle.dialect, table, this.instance, at);
        const n = await takeBackExpiredLeases(this.handle.db, this.handle.dialect, table, expiredBefore);
        if (n > 0) this.logger.warn({ table, takenBack: n }, 'claims of a stopped process are queued again');
        takenBack += n;
      } catch (err) {
        this.logger.warn({ err, table }, 'renewing or taking back leases failed; retrying at the next poll');
      }
    }
    return takenBack;
  }
}
