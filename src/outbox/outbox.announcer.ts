import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../db/database.js';
import { notifyQueuedWork } from './outbox.repository.js';

/**
 * Least time between two NOTIFYs of one process. Other instances only need to hear that
 * something was queued, not what: their dispatcher's pump claims whatever is there.
 */
export const ANNOUNCE_GAP_MS = 50;

/**
 * PostgreSQL: tells the other instances' dispatchers, after a commit, that outbound work was
 * queued, with at most one NOTIFY per ANNOUNCE_GAP_MS (and one in flight), each in a statement of
 * its own. Not inside the submit statement: PostgreSQL serializes the commits of every
 * transaction that notified on one cluster-wide lock held across the commit's WAL flush, so
 * submit batches that notified could no longer share a flush, and the submit p99 rose by a fifth
 * at a steady 400 emailed and hooked submissions/s (bench/ANALYSIS.md, stop 42). A NOTIFY that
 * fails is only logged: the other instances' 2 s poll finds the work anyway.
 */
export class QueuedWorkAnnouncer {
  private sending: Promise<void> | undefined;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private again = false;
  private closed = false;

  constructor(
    private readonly db: Executor,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** After a commit that queued work. */
  announce(): void {
    if (this.closed) return;
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = this.gapPassed()
      .then(() => {
        if (this.closed) return;
        this.lastSentAt = performance.now();
        this.again = false;
        return notifyQueuedWork(this.db);
      })
      .catch((err: unknown) => this.logger.warn({ err }, 'NOTIFY of queued outbound work failed; other instances poll for it'))
      .finally(() => {
        this.sending = undefined;
        if (this.again) this.announce();
      });
  }

  /** Resolves once ANNOUNCE_GAP_MS have passed since the last NOTIFY (a timer can fire a little early). */
  private async gapPassed(): Promise<void> {
    for (let left = this.lastSentAt + ANNOUNCE_GAP_MS - performance.now(); left > 0; left = this.lastSentAt + ANNOUNCE_GAP_MS - performance.now()) {
      await delay(left);
    }
  }

  /** Nothing more is sent; resolves once the NOTIFY in flight, if any, has finished. */
  async close(): Promise<void> {
    this.closed = true;
    await this.sending;
  }
}
