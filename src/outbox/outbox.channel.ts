import type { Trx } from '../db/database.js';

/** One send the dispatcher runs; it records its own outcome. */
export type OutboxSend = () => Promise<void>;

export interface ChannelContext {
  /** Asks the dispatcher to look for due work again after `delayMs` (e.g. a scheduled retry). */
  wakeAfter(delayMs: number): void;
}

/**
 * A way outbound work leaves Formgate (hook deliveries, email, …). The outbox dispatcher owns the
 * queue, the wake-ups and the concurrency; a channel knows which forms have work for it, how to
 * turn a queued submission into its own work items, how to claim the ones that are due, and how
 * to send one. A channel is a feature folder plugged in from src/services.ts; the outbox names none.
 */
export interface OutboxChannel {
  readonly name: string;
  /** At most this many of the channel's sends run at once. */
  readonly maxInFlight: number;
  /**
   * SQL text of a boolean expression that holds when the form whose id is `formIdColumn` has work
   * for this channel (e.g. it has a hook): a submission is queued when any channel's holds. It is
   * run in the submit transaction and in PostgreSQL's one-statement submit batch, so it must be
   * plain SQL valid on both databases, over tables the channel owns. `formIdColumn` is a column
   * reference written by the outbox, never input.
   */
  formHasWorkSql(formIdColumn: string): string;
  /**
   * Inside the dispatcher's transaction that takes the submissions off the outbox; their rows are
   * still in the `outbox` table (its created_at is when each was released) and deleted after.
   * Returns how many items it created: a channel that created none is not asked to claim.
   */
  expand(trx: Trx, submissionIds: string[]): Promise<number>;
  /**
   * Before each round of the dispatcher, outside its transaction: false when the channel cannot
   * claim now (e.g. it does not hold its liveness lock), which counts as nothing due.
   */
  readyToClaim?(): Promise<boolean>;
  /**
   * Inside the dispatcher's transaction, beside the other channels' claims and the expansion:
   * claims up to `limit` due items (so no other dispatcher sends them) and returns their sends,
   * which the dispatcher starts only once that transaction committed. Called at most once in a
   * transaction: locks a claim takes in an order of its own (sorted, say) stay in that order
   * until the commit, so two dispatchers claiming at once cannot deadlock on them.
   */
  claim(trx: Trx, limit: number): Promise<OutboxSend[]>;
  /** Items queued or in flight (for the outbox-pending gauge). */
  countPending(): Promise<number>;
  start?(context: ChannelContext): Promise<void>;
  close(): Promise<void>;
}
