import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle, Executor } from '../db/database.js';

// Issue 5: sends the outbox (hook_deliveries) to targets; woken on commit, polls as a fallback.
export class DeliveryDispatcher {
  constructor(
    protected readonly handle: DatabaseHandle,
    protected readonly config: Config,
    protected readonly logger: FastifyBaseLogger,
  ) {}

  start(): void {}

  /** Called after a commit that queued deliveries. */
  wake(): void {}

  /** Called inside a submit transaction that queued deliveries. */
  async announceInTransaction(_trx: Executor): Promise<void> {}

  async stop(): Promise<void> {}
}
