import type { Executor } from '../db/database.js';

/** One send the dispatcher runs; it records its own outcome. */
export type OutboxSend = () => Promise<void>;

export interface ChannelContext {
  /** Asks the dispatcher to look for due work again after `delayMs` (e.g. a scheduled retry). */
  wakeAfter(delayMs: number): void;
}

/**
 * A way outbound work leaves Formgate (hook deliveries, email). The outbox dispatcher owns the
 * queue, the wake-ups and the concurrency; a channel knows how to turn a queued submission into
 * its own work items, how to claim the ones that are due, and how to send one.
 */
export interface OutboxChannel {
  readonly name: string;
  /** At most this many of the channel's sends run at once. */
  readonly maxInFlight: number;
  /**
   * Inside the dispatcher's transaction that takes the submissions off the outbox; their rows are
   * still in the `outbox` table (its created_at is when each was released) and deleted after.
   */
  expand(trx: Executor, submissionIds: string[]): Promise<void>;
  /** Claims up to `limit` due items (so no other dispatcher sends them) and returns their sends. */
  claim(limit: number): Promise<OutboxSend[]>;
  /** Items queued or in flight (for the outbox-pending gauge). */
  countPending(): Promise<number>;
  start?(context: ChannelContext): Promise<void>;
  close(): Promise<void>;
}
