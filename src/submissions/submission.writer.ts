import type { Kysely } from 'kysely';
import type { Database, NewSubmissionRow } from '../db/schema.js';
import type { Executor } from '../db/database.js';
import { queueHookFanouts } from '../deliveries/delivery.repository.js';
import { claimIdempotencyKey, insertSubmissionRows, type IdempotencyRecordInput } from './submission.repository.js';

export interface PendingWrite {
  row: NewSubmissionRow;
  /** Present when the request carried an Idempotency-Key. */
  idempotency?: IdempotencyRecordInput;
  /** Non-spam submissions are sent to the form's hooks. */
  sendToHooks: boolean;
}

/** How the writer tells the hook dispatcher(s) that deliveries were queued. */
export interface DeliverySignal {
  /** Inside the transaction, so other instances hear of it exactly when it commits. */
  announceInTransaction(trx: Executor): Promise<void>;
  /** After the commit, for this process's dispatcher. */
  wake(): void;
}

export type WriteResult = { stored: true } | { stored: false; reason: 'idempotency_conflict' };

interface Queued {
  write: PendingWrite;
  resolve(result: WriteResult): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 256;

/**
 * The first write of a batch waits for the event loop's check phase. Without it, a synchronous
 * driver (better-sqlite3) runs the whole transaction in the same microtask chain as the request
 * that started it, before the loop reads the other requests already waiting on their sockets, and
 * every batch holds one submission.
 */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Group commit: every submission that arrives while a transaction is being written goes into the
 * next single transaction (rows, idempotency claims and outbox rows together), and each caller is
 * answered only once the transaction holding its submission has committed. One writer loop per
 * process; on a failed batch each write is retried alone so one bad row cannot fail the others.
 */
export class SubmissionWriter {
  private queue: Queued[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly expiredBefore: () => string,
    private readonly deliveries: DeliverySignal,
  ) {}

  write(write: PendingWrite): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.flushing ??= nextMacrotask().then(() => this.flush());
    });
  }

  /** Resolves once everything queued so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const { results, fanouts } = await this.db.transaction().execute((trx) => this.writeBatch(trx, batch));
          batch.forEach((item, i) => item.resolve(results[i]!));
          if (fanouts > 0) this.deliveries.wake();
        } catch (error) {
          if (batch.length === 1) batch[0]!.reject(error);
          else await this.writeOneByOne(batch);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async writeOneByOne(batch: Queued[]): Promise<void> {
    for (const item of batch) {
      try {
        const { results, fanouts } = await this.db.transaction().execute((trx) => this.writeBatch(trx, [item]));
        item.resolve(results[0]!);
        if (fanouts > 0) this.deliveries.wake();
      } catch (error) {
        item.reject(error);
      }
    }
  }

  private async writeBatch(trx: Executor, batch: Queued[]): Promise<{ results: WriteResult[]; fanouts: number }> {
    let expiredBefore: string | undefined;
    const results: WriteResult[] = [];
    const rows: NewSubmissionRow[] = [];
    const hookSubmissionIds: string[] = [];
    for (const { write } of batch) {
      if (write.idempotency && !(await claimIdempotencyKey(trx, write.idempotency, (expiredBefore ??= this.expiredBefore())))) {
        results.push({ stored: false, reason: 'idempotency_conflict' });
        continue;
      }
      results.push({ stored: true });
      rows.push(write.row);
      if (write.sendToHooks) hookSubmissionIds.push(write.row.id);
    }
    await insertSubmissionRows(trx, rows);
    const fanouts = await queueHookFanouts(trx, hookSubmissionIds);
    if (fanouts > 0) await this.deliveries.announceInTransaction(trx);
    return { results, fanouts };
  }
}
