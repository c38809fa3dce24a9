import type { SelectQueryBuilder } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle, Trx } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import { newId } from '../../platform/lib/ids.js';
import { nowIso } from '../../platform/lib/time.js';
import { OutboxDispatcher } from './outbox.dispatcher.js';
import { insertTestSendRow, listAttemptRowsOfItems, listNewestAttemptRows, listTestSendRows } from './outbox-log.repository.js';
import { groupByItem, loggedAttemptOf, messageLogEntryOf } from './outbox.log.js';
import type { LoggedAttempt, LoggedItem, MessageLogEntry, OutboxChannel, OutboxQueue, TestSend } from './outbox.types.js';

/**
 * The outbox as the rest of Formgate uses it: the queue the submit path writes to, "Send again"
 * and "Send test" of every channel, the one attempt log and the message log read from it, and
 * the count of work pending. The channels' services reach the outbox only through this; the
 * dispatcher (outbox.dispatcher.ts) does the sending.
 */
export class OutboxService {
  private readonly dispatcher: OutboxDispatcher;
  /** THE way to queue outbound work: writes and drops outbox rows in the callers' transactions. */
  readonly queue: OutboxQueue;

  constructor(
    private readonly handle: DatabaseHandle,
    logger: FastifyBaseLogger,
    channels: OutboxChannel[],
    options: { leaseMs?: number } = {},
  ) {
    this.dispatcher = new OutboxDispatcher(handle, logger, channels, options);
    this.queue = this.dispatcher.queue;
  }

  start(): void {
    this.dispatcher.start();
  }

  /** Finishes what is being sent and stops (shutdown). */
  stop(): Promise<void> {
    return this.dispatcher.stop();
  }

  /** Resolves once nothing is being sent and no pump is running or scheduled (tests, shutdown). */
  settle(): Promise<void> {
    return this.dispatcher.settle();
  }

  /** After a commit that made work due outside the queue (a message queued, a held one released). */
  wake(): void {
    this.dispatcher.wake();
  }

  /** Renews this instance's leases and takes back expired ones (the poll does it; tests call it). */
  maintainLeases(): Promise<void> {
    return this.dispatcher.maintainLeases();
  }

  /** Submissions still to expand plus every channel's items pending or being sent, in one query. */
  countPending(): Promise<number> {
    return this.dispatcher.countPending();
  }

  /** "Send again" of the channel's items among `ids` that are done (OutboxDispatcher.sendAgain). */
  sendAgain(channelName: string, ids: string[], inTransaction: { record?: (trx: Trx, queued: number) => Promise<void> } = {}): Promise<number> {
    return this.dispatcher.sendAgain(channelName, ids, inTransaction);
  }

  /**
   * The owner's "Send test" through the channel named `channelName` to `subjectId` (a hook, an
   * integration, a recipient the caller checked is the owner's): one attempt now, logged under
   * the subject's ID with its other test sends. Undefined when the channel is off or the subject
   * is gone.
   */
  async sendTest(channelName: string, subjectId: string): Promise<TestSend | undefined> {
    const channel = this.dispatcher.channel(channelName);
    const attemptedAt = nowIso();
    const outcome = await channel?.sendTest?.(subjectId);
    if (!channel || !outcome) return undefined;
    const sent = outcome.answer.kind === 'sent';
    await insertTestSendRow(this.handle.db, {
      id: newId('att'),
      channel: channel.name,
      item_id: subjectId,
      attempted_at: attemptedAt,
      // A test is never retried: an answer worth retrying failed all the same.
      outcome: sent ? 'sent' : 'failed',
      status: outcome.status,
      duration_ms: outcome.durationMs,
      error: outcome.error,
    });
    return { sent, status: outcome.status, durationMs: outcome.durationMs, error: outcome.error };
  }

  /** The newest `limit` test sends logged under these subjects, newest first. */
  async listTestSends(subjectIds: string[], limit: number): Promise<LoggedAttempt[]> {
    return (await listTestSendRows(this.handle.db, subjectIds, limit)).map(loggedAttemptOf);
  }

  /** Every attempt of each of the items, oldest first (items with none are absent). */
  async listAttemptsOf(itemIds: string[]): Promise<Map<string, LoggedAttempt[]>> {
    return groupByItem(await listAttemptRowsOfItems(this.handle.db, [...new Set(itemIds)]));
  }

  /** The newest `limit` attempts of the items a channel's query selects (test sends included when it selects their subject), newest first. */
  async listNewestAttempts(items: SelectQueryBuilder<Database, any, { id: string }>, limit: number): Promise<LoggedAttempt[]> {
    return (await listNewestAttemptRows(this.handle.db, items, limit)).map(loggedAttemptOf);
  }

  /** The channels' items as the owner's message log shows them, each with what its attempts say (one query for all). */
  async messageLog(items: LoggedItem[]): Promise<MessageLogEntry[]> {
    const attempts = await this.listAttemptsOf(items.map((item) => item.id));
    return items.map((item) => messageLogEntryOf(item, attempts.get(item.id) ?? []));
  }
}
