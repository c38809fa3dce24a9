import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle, Trx } from '../db/database.js';
import { openDedicatedConnection, type DedicatedConnection } from '../db/dedicated-connection.js';
import type { OutboxChannel } from './outbox.channel.js';
import {
  OUTBOX_NOTIFY_CHANNEL,
  countOutboxRows,
  deleteOutboxRows,
  findFormsWithOutboundWork,
  insertOutboxRows,
  listenForQueuedWork,
  lockOutboxBatch,
  notifyQueuedWork,
  queueOutboundWork,
  queueOutboundWorkStatementSql,
} from './outbox.repository.js';

const POLL_INTERVAL_MS = 2000;
/** Submissions expanded per transaction: fills the send slots with few transactions. */
const EXPAND_BATCH = 16;

/**
 * The one place that owns queued outbound work. The submit transaction writes one outbox row per
 * submission whose form has work for some channel; this dispatcher expands a batch of them into
 * each channel's items once the items already created are all claimed, so a backlog
 * stays compact outbox rows. Woken at once after a commit that queued work (and, on PostgreSQL,
 * by NOTIFY from any instance), with a poll as a fallback. Channels claim their items so that
 * each is sent by exactly one dispatcher; what a crash left queued is picked up at the next start.
 */
export class OutboxDispatcher {
  private readonly inFlight = new Map<string, Set<Promise<void>>>();
  private started = false;
  private stopping = false;
  private pumping: Promise<void> | undefined;
  private wakeAgain = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** PostgreSQL: the connection that LISTENs for work queued by any instance. */
  private listener: DedicatedConnection | undefined;
  private listening = false;
  private stopped: Promise<void> | undefined;
  private ready: Promise<void> = Promise.resolve();
  /** SQL text per form id column: the form has work for some channel (each channel owns its part). */
  private readonly hasWorkSqlByColumn = new Map<string, string>();
  /**
   * Channels whose last claim found nothing due. They are asked again after an expansion or any
   * outside wake-up (a commit, NOTIFY, the poll, a scheduled retry), not after each finished
   * send of another channel: a busy email channel does not make the hook channel query for
   * nothing after every message.
   */
  private readonly idle = new Set<string>();

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
    private readonly channels: OutboxChannel[],
  ) {
    for (const channel of channels) this.inFlight.set(channel.name, new Set());
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.ready = Promise.all(
      this.channels.map((channel) =>
        channel.start?.({ wakeAfter: (ms) => this.wakeAfter(ms) }).catch((err: unknown) => {
          this.logger.warn({ err, channel: channel.name }, 'starting an outbox channel failed');
        }),
      ),
    ).then(() => undefined);
    this.pollTimer = setInterval(() => {
      if (this.handle.pgPool && !this.listener?.held) void this.listen();
      this.wake();
    }, POLL_INTERVAL_MS);
    this.pollTimer.unref();
    if (this.handle.pgPool) void this.listen();
    this.wake();
  }

  /** Called after a commit that queued work (and by the poll, NOTIFY and scheduled retries). */
  wake(): void {
    this.idle.clear();
    this.pumpSoon();
  }

  private pumpSoon(): void {
    if (!this.started || this.stopping) return;
    if (this.pumping) {
      this.wakeAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
    });
  }

  /**
   * Drops the queued rows of submissions about to be deleted, inside the deleting transaction and
   * before the submissions themselves: the row locks are then taken in the dispatcher's order
   * (outbox row, then submission), so a deletion waits for an expansion in progress instead of
   * deadlocking with it on PostgreSQL.
   */
  async dropQueuedWork(trx: Trx, submissionIds: string[]): Promise<void> {
    if (submissionIds.length > 0) await deleteOutboxRows(trx, submissionIds);
  }

  /**
   * THE way to queue a submission's outbound work (new submissions, and any later path that must
   * send one as if new): inside the caller's transaction, one outbox row per submission whose form
   * has work for some channel (OutboxChannel.formHasWorkSql); a submission already queued
   * is not queued twice. Other instances hear of it when the transaction commits; call wake()
   * after the commit. `releasedAt` (default: the submission's arrival) decides which hooks receive
   * it: those subscribed by then. Returns how many submissions were queued.
   */
  async queueInTransaction(trx: Trx, submissionIds: string[], options: { releasedAt?: string } = {}): Promise<number> {
    const queued = await queueOutboundWork(trx, submissionIds, { hasWork: this.formHasWorkSql, releasedAt: options.releasedAt });
    await this.notifyOtherInstances(trx, queued);
    return queued;
  }

  /**
   * The same queueing for submissions inserted by the caller's transaction, whose forms the caller
   * knows: one query finds which of their forms have outbound work (usually none, or one form),
   * instead of a lookup per submission. Same result as queueInTransaction for new submissions.
   */
  async queueNewSubmissions(trx: Trx, submissions: Array<{ id: string; formId: string; createdAt: string }>): Promise<number> {
    if (submissions.length === 0) return 0;
    const forms = await findFormsWithOutboundWork(trx, [...new Set(submissions.map((s) => s.formId))], this.formHasWorkSql);
    if (forms.size === 0) return 0;
    const queued = await insertOutboxRows(trx, submissions.filter((s) => forms.has(s.formId)));
    await this.notifyOtherInstances(trx, queued);
    return queued;
  }

  /** PostgreSQL: other instances' dispatchers hear of queued work when the transaction commits. */
  private async notifyOtherInstances(trx: Trx, queued: number): Promise<void> {
    if (queued > 0 && this.handle.dialect === 'postgres') await notifyQueuedWork(trx);
  }

  /** Every channel's condition, or'ed; built once per column (it runs on every submit). */
  private readonly formHasWorkSql = (formIdColumn: string): string => {
    let text = this.hasWorkSqlByColumn.get(formIdColumn);
    if (text === undefined) {
      text = this.channels.map((channel) => `(${channel.formHasWorkSql(formIdColumn)})`).join(' or ') || 'false';
      this.hasWorkSqlByColumn.set(formIdColumn, text);
    }
    return text;
  };

  /**
   * The same queueing for a statement that inserts submissions and queues them at once
   * (PostgreSQL's one-statement submit batch): SQL over a relation of the inserted submissions,
   * and the channel to NOTIFY when it queued any. Call wake() after it ran.
   */
  readonly queueStatement = {
    queueSql: (source: string) => queueOutboundWorkStatementSql(source, this.formHasWorkSql),
    notifyChannel: OUTBOX_NOTIFY_CHANNEL,
  };

  /**
   * Outbound work not yet done: submissions still to expand (one each, however many items they
   * will make) plus every channel's queued and in-flight items.
   */
  async countPending(): Promise<number> {
    const counts = await Promise.all([countOutboxRows(this.handle.db), ...this.channels.map((channel) => channel.countPending())]);
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** Resolves once nothing is being sent (tests, shutdown). */
  async settle(): Promise<void> {
    await this.pumping;
    for (const sends of this.inFlight.values()) await Promise.all(sends);
  }

  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  private wakeAfter(delayMs: number): void {
    if (this.stopping) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.wake();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.listener?.release();
    this.listener = undefined;
    await this.settle();
    for (const channel of this.channels) await channel.close();
  }

  private freeSlots(channel: OutboxChannel): number {
    return channel.maxInFlight - this.inFlight.get(channel.name)!.size;
  }

  private async pump(): Promise<void> {
    await this.ready;
    do {
      this.wakeAgain = false;
      while (!this.stopping) {
        let claimed = 0;
        let full = false;
        for (const channel of this.channels) {
          const free = this.freeSlots(channel);
          if (free <= 0) {
            full = true;
            continue;
          }
          if (this.idle.has(channel.name)) continue;
          let sends;
          try {
            sends = await channel.claim(free);
          } catch (err) {
            this.logger.warn({ err, channel: channel.name }, 'claiming outbound work failed; retrying at the next poll');
            continue;
          }
          claimed += sends.length;
          if (sends.length === 0) this.idle.add(channel.name);
          if (sends.length === free) full = true;
          for (const send of sends) this.track(channel, send());
        }
        // Expand more only when every created item is out: a backlog stays compact outbox rows.
        // A full channel may still have items waiting; a finished send wakes the pump again.
        if (full || claimed > 0) {
          if (full) break;
          continue;
        }
        if ((await this.expand()) === 0) break;
      }
    } while (this.wakeAgain && !this.stopping);
  }

  /** Creates the work of the oldest queued submissions in every channel; returns how many submissions. */
  private async expand(): Promise<number> {
    try {
      return await this.handle.db.transaction().execute(async (trx) => {
        const ids = await lockOutboxBatch(trx, this.handle.dialect, EXPAND_BATCH);
        if (ids.length === 0) return 0;
        for (const channel of this.channels) await channel.expand(trx, ids);
        await deleteOutboxRows(trx, ids);
        return ids.length;
      }).then((expanded) => {
        if (expanded > 0) this.idle.clear();
        return expanded;
      });
    } catch (err) {
      this.logger.warn({ err }, 'expanding the outbox failed; retrying at the next poll');
      return 0;
    }
  }

  private track(channel: OutboxChannel, sending: Promise<void>): void {
    const sends = this.inFlight.get(channel.name)!;
    const tracked = sending.catch((err: unknown) => this.logger.error({ err, channel: channel.name }, 'an outbound send failed unexpectedly'));
    sends.add(tracked);
    void tracked.finally(() => {
      sends.delete(tracked);
      // A slot is free: there may be more waiting.
      this.pumpSoon();
    });
  }

  private async listen(): Promise<void> {
    const pool = this.handle.pgPool;
    if (!pool || this.listener?.held || this.listening || this.stopping) return;
    this.listening = true;
    let connection: DedicatedConnection | undefined;
    try {
      connection = await openDedicatedConnection(pool, { onNotification: () => this.wake() });
      await listenForQueuedWork(connection.db);
      // Stopped meanwhile: nothing may keep the connection.
      if (this.stopping) connection.release();
      else if (connection.held) this.listener = connection;
    } catch (err) {
      connection?.release();
      this.logger.warn({ err }, 'LISTEN for outbound work failed; polling instead');
    } finally {
      this.listening = false;
    }
  }
}
