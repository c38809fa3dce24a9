import type { FastifyBaseLogger } from 'fastify';
import type { SelectQueryBuilder } from 'kysely';
import type { DatabaseHandle, Executor } from '../db/database.js';
import type { Database, OutboxAttemptRow } from '../db/schema.js';
import { BatchedWrites, writeSkippingLocked } from '../lib/batched-writes.js';
import { newId } from '../lib/ids.js';
import { nowIso } from '../lib/time.js';
import type { OutboxChannel, OutboxItem, RecordedAttempt, SendOutcome } from './outbox.channel.js';
import { nextStep, retries } from './outbox.policy.js';
import {
  insertAttemptRow,
  listAttemptRowsOfItems,
  listNewestAttemptRows,
  recordAttempt,
  recordAttemptsTogether,
  recordAttemptsUnlessLocked,
  type AttemptWrite,
  type ItemTable,
} from './outbox-attempt.repository.js';

/** Attempts are written at most this often: at 400 sends/s, groups of ~8 rows instead of ~4. */
const RECORD_GAP_MS = 20;

interface QueuedWrite {
  items: ItemTable;
  write: AttemptWrite;
}

/**
 * The outbox's record of every attempt, for every channel: sends a leased item through its
 * channel, computes the item's next step from the channel's policy, and writes the item's new
 * state (state, attempts, when it is due again, the claim cleared) with a row of the one attempt
 * log, `outbox_attempts`. Attempts that finish together are written together (one transaction on
 * SQLite, one statement per channel on PostgreSQL); an outcome with a side effect of the channel's
 * (SendOutcome.settles) is written on its own, in one transaction with it.
 */
export class AttemptRecorder {
  private readonly queued: BatchedWrites<QueuedWrite>;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
    /** Wakes the dispatcher when a retry is due. */
    private readonly wakeAfter: (delayMs: number) => void,
  ) {
    this.queued = new BatchedWrites((group) => this.writeGroup(group), { minGapMs: RECORD_GAP_MS });
  }

  /** One attempt at a leased item, recorded. Rejects only when the channel's send throws (the lease then runs out and the item is sent again). */
  async send<Item extends OutboxItem>(channel: OutboxChannel<Item>, item: Item): Promise<void> {
    const attemptedAt = nowIso();
    const outcome = await channel.send(item);
    const { write, recorded, retryInMs } = attemptOf(channel, item, outcome, attemptedAt);
    const items = { table: channel.table, retries: retries(channel.policy) };
    try {
      if (outcome.settles) {
        await this.handle.db.transaction().execute(async (trx) => {
          await recordAttempt(trx, items, write);
          await channel.settle?.(trx, item, recorded);
        });
      } else {
        await this.queued.write({ items, write });
      }
    } catch (err) {
      this.logger.error({ err, channel: channel.name, itemId: item.id }, 'recording an outbound attempt failed');
    }
    if (retryInMs !== undefined) this.wakeAfter(retryInMs);
    channel.recorded?.(item, recorded);
  }

  /** A group of attempts that finished together, each channel's in one statement group. */
  private async writeGroup(group: QueuedWrite[]): Promise<void> {
    const byTable = new Map<string, { items: ItemTable; writes: AttemptWrite[] }>();
    for (const { items, write } of group) {
      const entry = byTable.get(items.table) ?? { items, writes: [] };
      entry.writes.push(write);
      byTable.set(items.table, entry);
    }
    const db = this.handle.db;
    // SQLite has one writer: one transaction, no lock is ever waited for.
    if (this.handle.dialect === 'sqlite') {
      await db.transaction().execute(async (trx) => {
        for (const { items, writes } of byTable.values()) await recordAttemptsTogether(trx, items, writes);
      });
      return;
    }
    let failure: unknown;
    for (const { items, writes } of byTable.values()) {
      try {
        await writeSkippingLocked(
          writes,
          (w) => w.itemId,
          (together) => recordAttemptsUnlessLocked(db, items, together),
          (one) => db.transaction().execute(async (trx) => void (await recordAttempt(trx, items, one))),
        );
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }
}

/** The attempt's row and the item's next step, from the channel's outcome and policy. */
function attemptOf<Item extends OutboxItem>(channel: OutboxChannel<Item>, item: Item, outcome: SendOutcome, attemptedAt: string) {
  const attempt = item.attempts + 1;
  const step = nextStep(channel.policy, attempt, outcome.answer);
  const gaveUp = step.state === 'failed' && step.gaveUp;
  const state = step.state === 'failed' ? (gaveUp ? 'failed' : (outcome.state ?? 'failed')) : step.state;
  const label = step.state === 'pending' ? 'retry' : gaveUp ? 'failed' : (outcome.label ?? step.state);
  const error = gaveUp && outcome.error !== null ? `${outcome.error} (gave up after ${attempt} attempts)` : outcome.error;
  const retryInMs = step.state === 'pending' ? step.retryInMs : undefined;
  const write: AttemptWrite = {
    id: newId('att'),
    channel: channel.name,
    itemId: item.id,
    attempt,
    attemptedAt,
    outcome: label,
    status: outcome.status,
    durationMs: outcome.durationMs,
    error,
    state,
    nextAttemptAt: retryInMs === undefined ? null : new Date(Date.now() + retryInMs).toISOString(),
  };
  const recorded: RecordedAttempt = { attempt, attemptedAt, outcome: label, state, error };
  return { write, recorded, retryInMs };
}

/** One row of the attempt log, as the channels' readers show it: what was written of it. */
export type LoggedAttempt = Pick<AttemptWrite, 'id' | 'itemId' | 'attempt' | 'attemptedAt' | 'outcome' | 'status' | 'durationMs' | 'error'>;

const loggedAttemptOf = (row: OutboxAttemptRow): LoggedAttempt => ({
  id: row.id,
  itemId: row.item_id,
  attempt: Number(row.attempt),
  attemptedAt: row.attempted_at,
  outcome: row.outcome,
  status: row.status === null ? null : Number(row.status),
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  error: row.error,
});

/** Every attempt of each of the items, oldest first (items with none are absent). */
export async function listAttemptsOf(db: Executor, itemIds: string[]): Promise<Map<string, LoggedAttempt[]>> {
  const byItem = new Map<string, LoggedAttempt[]>();
  for (const row of await listAttemptRowsOfItems(db, [...new Set(itemIds)])) {
    const list = byItem.get(row.item_id) ?? [];
    list.push(loggedAttemptOf(row));
    byItem.set(row.item_id, list);
  }
  return byItem;
}

/** The newest `limit` attempts of the items a channel's query selects, newest first. */
export async function listNewestAttempts(db: Executor, items: SelectQueryBuilder<Database, any, { id: string }>, limit: number): Promise<LoggedAttempt[]> {
  return (await listNewestAttemptRows(db, items, limit)).map(loggedAttemptOf);
}

/**
 * Logs an attempt at something the outbox does not send (an integration's test message): it
 * shows in the log of whatever `itemId` names, and goes with it.
 */
export async function logAttempt(db: Executor, attempt: Omit<LoggedAttempt, 'id' | 'attempt'> & { channel: string }): Promise<void> {
  await insertAttemptRow(db, { ...attempt, id: newId('att'), attempt: 1 });
}
