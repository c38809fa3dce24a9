import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle, Trx } from '../../platform/db/database.js';
import { yieldToWaitingWork } from '../../platform/lib/yield.js';
import { QueuedWorkAnnouncer, QueuedWorkListener } from './outbox.announcer.js';
import type { OutboxChannel, OutboxQueue } from './outbox.types.js';
import { LEASE_MS, Leases } from './outbox.lease.js';
import { SubmissionQueue } from './outbox.repository.js';
import { countPendingWork, requeueItems } from './outbox-upkeep.repository.js';
import { nowIso } from '../../platform/lib/time.js';
import { retries } from './outbox.policy.js';
import { AttemptRecorder, runRoundSteps, type RoundOutcome } from './outbox.round.js';

const POLL_INTERVAL_MS = 2000;
/**
 * Least time between the starts of two pumps. Under a steady flow every commit and every finished
 * send asks for one; coalesced, each claim and expansion takes the items of this long in one
 * transaction instead of a transaction for each item or two, for at most this much delay.
 */
const PUMP_GAP_MS = 20;
/**
 * Submissions expanded per transaction: fills the send slots with few transactions (a backlog
 * on PostgreSQL drains at about this many per few round trips).
 */
const EXPAND_BATCH = 32;
/** Items queued again per statement (well under both databases' bind-parameter limits). */
const SEND_AGAIN_CHUNK = 500;
/** Sends started in one turn of the event loop. */
const SEND_START_SLICE = 4;

/**
 * The one place that owns queued outbound work. The submit transaction writes one outbox row per
 * submission whose form has work for some channel (OutboxQueue, which callers reach through
 * this); the dispatcher expands a batch of them into each channel's items once the items already
 * created are all claimed, so a backlog stays compact outbox rows. Woken at once after a commit that queued work (and, on PostgreSQL,
 * by NOTIFY from any instance), with a poll as a fallback. Channels claim their items so that
 * each is sent by exactly one dispatcher; what a crash left queued is picked up at the next start.
 */
export class OutboxDispatcher {
  private readonly inFlight = new Map<string, Set<Promise<void>>>();
  private started = false;
  private stopping = false;
  /** The pump running or scheduled. */
  private pumping: Promise<void> | undefined;
  private wakeAgain = false;
  private lastPumpAt = Number.NEGATIVE_INFINITY;
  private pollTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped: Promise<void> | undefined;
  private ready: Promise<void> = Promise.resolve();
  /** THE way to queue outbound work: writes and drops outbox rows in the callers' transactions. */
  readonly queue: OutboxQueue;
  /** Every channel's claims: renewed while this instance lives, taken back when another's expire. */
  private readonly leases: Leases;
  /** PostgreSQL: NOTIFY to the other instances after a commit that queued work. */
  private readonly announcer: QueuedWorkAnnouncer | undefined;
  /** PostgreSQL: LISTEN for work queued by any instance. */
  private readonly listener: QueuedWorkListener | undefined;
  /**
   * Channels whose last claim found nothing due. They are asked again after an expansion or any
   * outside wake-up (a commit, NOTIFY, the poll, a scheduled retry), not after each finished
   * send of another channel: a busy email channel does not make the hook channel query for
   * nothing after every message.
   */
  private readonly idle = new Set<string>();
  /** A round failed: its steps run in a transaction each until a round has no failing step. */
  private stepsApart = false;
  /** Sends each claimed item through its channel and records the attempt. */
  private readonly attempts: AttemptRecorder;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
    private readonly channels: OutboxChannel[],
    options: { leaseMs?: number } = {},
  ) {
    for (const channel of channels) this.inFlight.set(channel.name, new Set());
    this.queue = new SubmissionQueue(channels, () => this.queuedWorkCommitted());
    this.attempts = new AttemptRecorder(handle, logger, (ms) => this.wakeAfter(ms));
    this.leases = new Leases(handle, logger, channels.map((channel) => channel.table), String(randomInt(1, 2 ** 31 - 1)), options.leaseMs ?? LEASE_MS);
    if (handle.pgPool) {
      this.announcer = new QueuedWorkAnnouncer(handle.db, logger);
      this.listener = new QueuedWorkListener(handle.pgPool, logger, () => this.wakeToExpand());
    }
  }

  /**
   * "Send again": one new attempt for each item of the channel named `channelName` among `ids`
   * whose last attempt is done, through the same claim and send as the first, keeping its ID
   * (a hook's `webhook-id`); its earlier attempts stay in the attempt log. Items already queued or
   * being sent are left alone. Returns how many were queued. `record`, in the same transaction,
   * after: the audit event commits with the requeue, or neither does.
   */
  async sendAgain(
    channelName: string,
    ids: string[],
    inTransaction: { record?: (trx: Trx, queued: number) => Promise<void> } = {},
  ): Promise<number> {
    const channel = this.channels.find((c) => c.name === channelName);
    // No channel sends these items (email off, say): nothing would send them again.
    if (!channel) return 0;
    const table = channel.table;
    const hasDueTime = retries(channel.policy);
    const now = nowIso();
    let queued = 0;
    await this.handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < ids.length; i += SEND_AGAIN_CHUNK) {
        const chunk = ids.slice(i, i + SEND_AGAIN_CHUNK);
        queued += await requeueItems(trx, table, hasDueTime, chunk, now);
      }
      // The feature's audit event commits with the requeue, or neither does.
      if (queued > 0) await inTransaction.record?.(trx, queued);
    });
    if (queued > 0) {
      this.wake();
      this.announcer?.announce();
    }
    return queued;
  }

  /** Renews this instance's leases and takes back expired ones (the poll does it; tests call it). */
  async maintainLeases(): Promise<void> {
    if (this.stopping) return;
    if ((await this.leases.maintain()) > 0) this.wake();
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
      void this.listener?.listen();
      this.wake();
    }, POLL_INTERVAL_MS);
    this.pollTimer.unref();
    this.leaseTimer = setInterval(() => void this.maintainLeases(), this.leases.leaseMs / 3);
    this.leaseTimer.unref();
    void this.listener?.listen();
    void this.maintainLeases();
    this.wake();
  }

  /** Called after work was made due for a channel (a message queued, a retry due, the poll): every channel claims again. */
  wake(): void {
    this.idle.clear();
    this.pumpSoon();
  }

  /**
   * Called on NOTIFY of queued submissions: outbox rows, which become a channel's items only when
   * expanded, so the channels whose last claim found nothing stay idle and the expansion wakes
   * those it gives items. Waking every channel after each submit commit would run a claim
   * transaction per channel per pump for nothing, paid for by the submit throughput with email on
   * (figures: docs/performance.md#outbound-work-in-batches).
   */
  wakeToExpand(): void {
    this.pumpSoon();
  }

  /**
   * After this process committed queued submissions (OutboxQueue.committed): the same wake-up,
   * and on PostgreSQL a NOTIFY to the other instances, coalesced and sent after the commit
   * (QueuedWorkAnnouncer says why).
   */
  private queuedWorkCommitted(): void {
    this.pumpSoon();
    this.announcer?.announce();
  }

  private pumpSoon(): void {
    if (!this.started || this.stopping) return;
    if (this.pumping) {
      this.wakeAgain = true;
      return;
    }
    const wait = this.lastPumpAt + PUMP_GAP_MS - performance.now();
    this.pumping = (wait > 0 ? sleep(wait) : Promise.resolve())
      .then(() => this.pump())
      .finally(() => {
        this.pumping = undefined;
        if (this.wakeAgain) this.pumpSoon();
      });
  }

  /**
   * Outbound work not yet done: submissions still to expand (one each, however many items they
   * will make) plus every channel's queued and in-flight items, in one query.
   */
  countPending(): Promise<number> {
    return countPendingWork(this.handle.db, this.channels.map((channel) => channel.table));
  }

  /** The channel named `name`, if it is plugged in (email is not without SMTP_URL). */
  channel(name: string): OutboxChannel | undefined {
    return this.channels.find((c) => c.name === name);
  }

  /** Resolves once nothing is being sent and no pump is running or scheduled (tests, shutdown). */
  async settle(): Promise<void> {
    for (;;) {
      if (this.pumping) {
        await this.pumping;
        continue;
      }
      const sends = [...this.inFlight.values()].flatMap((set) => [...set]);
      if (sends.length === 0) return;
      await Promise.all(sends);
    }
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
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.listener?.close();
    await this.settle();
    await this.leases.idle();
    await this.announcer?.close();
    for (const channel of this.channels) await channel.close();
  }

  private freeSlots(channel: OutboxChannel): number {
    return channel.maxInFlight - this.inFlight.get(channel.name)!.size;
  }

  private async pump(): Promise<void> {
    await this.ready;
    this.lastPumpAt = performance.now();
    this.wakeAgain = false;
    while (!this.stopping) {
      const round = await this.runRound();
      await this.startSends(round);
      // A full channel may still have items waiting (a finished send wakes the pump again); an
      // expansion short of a batch took all there was (what was queued since woke the pump).
      if (round.full || (round.expanded < EXPAND_BATCH && !round.claimAgain)) break;
      await yieldToWaitingWork(1);
    }
  }

  /**
   * One round (runRoundSteps). On PostgreSQL in one transaction: one commit, one WAL flush, where
   * a transaction a step made three or more, each landing just after a submit batch's. After a
   * round that failed, each step runs in its own transaction until a round has no failing step,
   * so one channel's failing claim does not stop the others' work. On SQLite always apart, with
   * waiting requests let in between: its queries run on the event loop and a commit does not wait
   * for the disk, so one transaction would hold the loop longer and save nothing.
   */
  private async runRound(): Promise<RoundOutcome> {
    const plan = {
      channels: this.channels,
      idle: this.idle,
      lease: { instance: this.leases.instance },
      freeSlots: (channel: OutboxChannel) => this.freeSlots(channel),
      expandBatch: EXPAND_BATCH,
      dialect: this.handle.dialect,
    };
    if (this.handle.dialect === 'postgres' && !this.stepsApart) {
      try {
        const outcome = await this.handle.db.transaction().execute((trx) => runRoundSteps((_what, step) => step(trx), plan));
        this.applyRound(outcome);
        return outcome;
      } catch (err) {
        this.logger.warn({ err }, 'a round of the outbox failed; its steps run in a transaction each until they all succeed');
        this.stepsApart = true;
      }
    }
    let failed = false;
    const outcome = await runRoundSteps(async (what, step) => {
      try {
        return await this.handle.db.transaction().execute(step);
      } catch (err) {
        failed = true;
        this.logger.warn({ err }, `${what} failed; retrying at the next poll`);
        return undefined;
      } finally {
        await yieldToWaitingWork(1);
      }
    }, plan);
    this.stepsApart = failed;
    this.applyRound(outcome);
    return outcome;
  }

  /** Committed: the channels the expansion gave items have work to claim; a drained claim makes its channel idle. */
  private applyRound(outcome: RoundOutcome): void {
    for (const name of outcome.madeWork) this.idle.delete(name);
    for (const [name, drained] of outcome.drained) {
      if (drained) this.idle.add(name);
      else this.idle.delete(name);
    }
  }

  private async startSends(outcome: RoundOutcome): Promise<void> {
    let started = 0;
    for (const { channel, items } of outcome.sends) {
      for (const item of items) {
        // Starting a send is synchronous work (a body to build and sign, a message to compose):
        // a claim of dozens, started at once, would hold the event loop for milliseconds while
        // submissions wait. Requests that arrived meanwhile go between slices.
        if (started > 0 && started % SEND_START_SLICE === 0) await yieldToWaitingWork(1);
        this.track(channel, this.attempts.send(channel, item));
        started++;
      }
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
}
