import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Database, NewSubmissionRow } from '../../platform/db/schema.js';
import { isConnectionFault, isDeadlockVictim, type DatabaseHandle } from '../../platform/db/database.js';
import {
  claimIdempotencyKey,
  insertSubmissionRows,
  storeSubmissionBatchInOneStatement,
  type BatchedSubmission,
} from './submission.repository.js';
import type { OutboxQueue } from '../outbox/outbox.types.js';

/** Running totals since start: how well group commit batches (submissions per transaction). */
export interface WriterStats {
  /** Committed transactions. */
  transactions: number;
  /** Submissions stored by them. */
  submissions: number;
}

/** `form_missing`: the form was deleted since the form cache read it (PostgreSQL; SQLite's foreign key throws instead). */
export type WriteResult = { stored: true } | { stored: false; reason: 'idempotency_conflict' | 'form_missing' };

/**
 * Stores one batch atomically: one result per write, in order, and how many were queued for
 * outbound work. `slot` (0 to the writer's batches at once, less one) is this batch's own among
 * those in flight: batches written at once never share one.
 */
export type BatchStore = (batch: BatchedSubmission[], slot: number) => Promise<{ results: WriteResult[]; queued: number }>;

/** One transaction per batch through the query builder: the idempotency claims one by one, then the rows and the outbox. */
function transactionBatchStore(db: Kysely<Database>, expiredBefore: () => string, outbox: OutboxQueue): BatchStore {
  return (batch) =>
    db.transaction().execute(async (trx) => {
      let cutoff: string | undefined;
      const results: WriteResult[] = [];
      const rows: NewSubmissionRow[] = [];
      const outbound: Array<{ id: string; formId: string; createdAt: string }> = [];
      for (const write of batch) {
        if (write.idempotency && !(await claimIdempotencyKey(trx, write.idempotency, (cutoff ??= expiredBefore())))) {
          results.push({ stored: false, reason: 'idempotency_conflict' });
          continue;
        }
        results.push({ stored: true });
        rows.push(write.row);
        if (write.queueOutbound) outbound.push({ id: write.row.id, formId: write.row.form_id, createdAt: write.row.created_at });
      }
      await insertSubmissionRows(trx, rows);
      const queued = await outbox.queue(trx, outbound);
      return { results, queued };
    });
}

/** Shards of PostgreSQL's counter rows (0–7, as migration 0006 made them). */
const COUNTER_SHARDS = 8;

/**
 * PostgreSQL: the whole batch in one autocommitted statement (one round trip). A key repeated
 * within the batch is claimed by its first write only; the others conflict, as they would
 * one after another in a transaction. Each slot counts into its own shard, offset per process so
 * that instances sharing the database spread over the shards too.
 */
function oneStatementBatchStore(pool: pg.Pool, expiredBefore: () => string, outbox: OutboxQueue): BatchStore {
  const shardOffset = randomInt(COUNTER_SHARDS);
  return async (batch, slot) => {
    const seenKeys = new Set<string>();
    const repeated = batch.map((write) => {
      if (!write.idempotency) return false;
      const key = `${write.idempotency.formId}\u0000${write.idempotency.key}`;
      if (seenKeys.has(key)) return true;
      seenKeys.add(key);
      return false;
    });
    const sent = batch.filter((_, i) => !repeated[i]);
    const { claimedIds, missingFormIds, queued } = await storeSubmissionBatchInOneStatement(pool, sent, {
      expiredBefore: expiredBefore(),
      outbox,
      counterShard: (shardOffset + slot) % COUNTER_SHARDS,
    });
    const results = batch.map((write, i): WriteResult => {
      // Before the key: a repeat of a key whose form is gone was not sent, and its form is gone too.
      if (missingFormIds.has(write.row.form_id)) return { stored: false, reason: 'form_missing' };
      if (repeated[i] || (write.idempotency && !claimedIds.has(write.row.id))) return { stored: false, reason: 'idempotency_conflict' };
      return { stored: true };
    });
    return { results, queued };
  };
}

/** The writer's store for this database. */
export function batchStoreFor(handle: DatabaseHandle, expiredBefore: () => string, outbox: OutboxQueue): BatchStore {
  return handle.pgPool ? oneStatementBatchStore(handle.pgPool, expiredBefore, outbox) : transactionBatchStore(handle.db, expiredBefore, outbox);
}

interface Queued {
  write: BatchedSubmission;
  /** performance.now() when it was queued. */
  queuedAt: number;
  resolve(result: WriteResult): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 256;
/**
 * PostgreSQL: at most 4 batches at once (of the pool's 10), a batch beside another only once 32
 * submissions wait or the oldest has waited 2 ms. On 2 cores, 4 batches started as soon as any
 * submission waited make batches of ~14 at ~90 µs of PostgreSQL CPU a submission; this rule makes
 * batches of ~25 at ~55 µs, and ~20% more submissions/s. The 2 ms keeps a slow commit from
 * holding up a light load behind it (docs/performance.md#group-commit-of-submissions).
 */
export interface WriterOptions {
  /** Batches written at once: 1 on SQLite (one connection, one writer). */
  maxConcurrentBatches?: number;
  /**
   * A batch starts beside one in flight once this many submissions wait, or once the oldest has
   * waited `maxConcurrentWaitMs` (a slow commit does not hold up those behind it for long).
   * By default every waiting submission may start a batch.
   */
  minConcurrentBatchSize?: number;
  maxConcurrentWaitMs?: number;
  /** After every commit that stored something (the search indexer's wake-up). */
  onStored?: () => void;
  /** A wake-up after a commit threw: its submissions are stored and answered, so it is only reported. */
  onWakeFailed?: (error: unknown) => void;
}

export const POSTGRES_BATCHES: WriterOptions = { maxConcurrentBatches: 4, minConcurrentBatchSize: 32, maxConcurrentWaitMs: 2 };

/**
 * Group commit: every submission that arrives while a transaction is being written goes into the
 * next single transaction (rows, idempotency claims and outbox rows together: one outbox row per
 * submission with hooks or email recipients), and each caller is
 * answered only once the transaction holding its submission has committed. On a failed batch each
 * write is retried alone so one bad row cannot fail the others.
 *
 * On PostgreSQL a batch spends part of its time waiting for the commit's WAL flush; when enough
 * submissions wait, the next batch starts meanwhile and PostgreSQL flushes the commits together.
 */
export class SubmissionWriter {
  private queue: Queued[] = [];
  /** The slots (BatchStore) no batch in flight holds. */
  private readonly freeSlots: number[];
  private scheduled = false;
  private readonly idle: Array<() => void> = [];
  private readonly totals: WriterStats = { transactions: 0, submissions: 0 };
  private readonly maxConcurrentBatches: number;
  private readonly minConcurrentBatchSize: number;
  private readonly maxConcurrentWaitMs: number;
  /** Set while waiting for the oldest submission to have waited maxConcurrentWaitMs. */
  private waitTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: BatchStore,
    private readonly outbox: Pick<OutboxQueue, 'committed'>,
    private readonly options: WriterOptions = {},
  ) {
    this.maxConcurrentBatches = options.maxConcurrentBatches ?? 1;
    this.minConcurrentBatchSize = options.minConcurrentBatchSize ?? 1;
    this.maxConcurrentWaitMs = options.maxConcurrentWaitMs ?? Number.POSITIVE_INFINITY;
    this.freeSlots = Array.from({ length: this.maxConcurrentBatches }, (_, i) => this.maxConcurrentBatches - 1 - i);
  }

  /** Batches being written: each holds a slot. */
  private get inFlight(): number {
    return this.maxConcurrentBatches - this.freeSlots.length;
  }

  write(write: BatchedSubmission): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, queuedAt: performance.now(), resolve, reject });
      this.schedule();
    });
  }

  get stats(): Readonly<WriterStats> {
    return { ...this.totals };
  }

  /** Resolves once the writer is idle: everything queued has been written (or refused). */
  drain(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * A batch starts in the event loop's check phase. Without it, a synchronous driver
   * (better-sqlite3) runs the whole transaction in the same microtask chain as the request that
   * started it, before the loop reads the other requests already waiting on their sockets, and
   * every batch holds one submission.
   */
  private schedule(): void {
    if (this.scheduled) return;
    if (!this.mayStartBatch()) return this.recheckWhenOldestWaited();
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startBatches();
    });
  }

  /**
   * The first batch starts whatever its size; another beside it only once enough submissions
   * wait to fill one (small concurrent batches each pay a statement, a commit and a round trip),
   * or once the oldest has waited long enough (the batch in flight is slow).
   */
  private mayStartBatch(): boolean {
    if (this.queue.length === 0) return false;
    if (this.inFlight === 0) return true;
    if (this.inFlight >= this.maxConcurrentBatches) return false;
    return this.queue.length >= this.minConcurrentBatchSize || performance.now() - this.queue[0]!.queuedAt >= this.maxConcurrentWaitMs;
  }

  /** Submissions wait behind a batch in flight: look again when the oldest has waited long enough. */
  private recheckWhenOldestWaited(): void {
    if (this.waitTimer || this.queue.length === 0 || this.inFlight >= this.maxConcurrentBatches) return;
    if (this.maxConcurrentWaitMs === Number.POSITIVE_INFINITY) return;
    const due = this.queue[0]!.queuedAt + this.maxConcurrentWaitMs - performance.now();
    this.waitTimer = setTimeout(() => {
      this.waitTimer = undefined;
      this.schedule();
    }, Math.max(1, Math.ceil(due)));
    this.waitTimer.unref();
  }

  private startBatches(): void {
    while (this.mayStartBatch()) {
      const slot = this.freeSlots.pop()!;
      void this.writeBatchOrEach(this.queue.splice(0, MAX_BATCH), slot).finally(() => {
        this.freeSlots.push(slot);
        if (this.queue.length > 0) this.schedule();
        else if (this.inFlight === 0 && !this.scheduled) this.idle.splice(0).forEach((resolve) => resolve());
      });
    }
  }

  /** Only the store is retried: once it has committed, the batch is answered and never written again. */
  private async writeBatchOrEach(batch: Queued[], slot: number): Promise<void> {
    let outcome: Awaited<ReturnType<BatchStore>>;
    try {
      outcome = await this.store(batch.map((item) => item.write), slot);
    } catch (error) {
      // One by one, so one bad row fails alone; a lone submission whose connection broke (a
      // terminated backend, a reset), or whose statement PostgreSQL rolled back to break a
      // deadlock, gets one more try.
      if (batch.length > 1 || isConnectionFault(error) || isDeadlockVictim(error)) {
        for (const item of batch) await this.store([item.write], slot).then((alone) => this.answer([item], alone), item.reject);
      } else batch[0]!.reject(error);
      return;
    }
    this.answer(batch, outcome);
  }

  /** After the commit: the callers are answered, then the dispatcher and the indexer woken. */
  private answer(batch: Queued[], { results, queued }: Awaited<ReturnType<BatchStore>>): void {
    const stored = results.filter((r) => r.stored).length;
    this.totals.transactions++;
    this.totals.submissions += stored;
    batch.forEach((item, i) => item.resolve(results[i]!));
    try {
      if (queued > 0) this.outbox.committed();
      if (stored > 0) this.options.onStored?.();
    } catch (error) {
      this.options.onWakeFailed?.(error);
    }
  }
}
