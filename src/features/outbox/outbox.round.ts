import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle, Dialect, Trx } from '../../platform/db/database.js';
import { BatchedWrites, writeSkippingLocked } from '../../platform/lib/batched-writes.js';
import { newId } from '../../platform/lib/ids.js';
import { nowIso } from '../../platform/lib/time.js';
import type { OutboxChannel, OutboxItem, RecordedAttempt, SendOutcome } from './outbox.types.js';
import { nextStep, retries } from './outbox.policy.js';
import {
  deleteOutboxRows,
  leaseDueItems,
  lockOutboxBatch,
  recordAttempt,
  recordAttemptsTogether,
  recordAttemptsUnlessLocked,
  type AttemptWrite,
  type ItemTable,
} from './outbox.repository.js';

// A round of the outbox has two halves: in one transaction, the claims and the expansion
// (runRoundSteps); after its commit, each claimed item is sent and its attempt recorded
// (AttemptRecorder), each as its send finishes.

/**
 * Runs one step of a round: in the round's one transaction (a failure aborts the round), or in a
 * transaction of its own whose failure is logged and skipped (`undefined`).
 */
export type RunStep = <T>(what: string, step: (trx: Trx) => Promise<T>) => Promise<T | undefined>;

/** Who claims: the owner every lease of a round carries. */
export interface ClaimLease {
  /** This instance's claimant id, written to `claimed_by`: the dispatcher renews its leases by it. */
  instance: string;
}

export interface RoundPlan {
  channels: readonly OutboxChannel[];
  /** Channels whose last claim found nothing due: not claimed unless the expansion gives them items. */
  idle: ReadonlySet<string>;
  /** Who claims: the lease every claim of the round carries. */
  lease: ClaimLease;
  freeSlots(channel: OutboxChannel): number;
  expandBatch: number;
  dialect: Dialect;
}

/** What a round did, applied by the dispatcher once the round's work is committed. */
export interface RoundOutcome {
  /** Each channel's claimed items, to send after the commit. */
  sends: Array<{ channel: OutboxChannel; items: OutboxItem[] }>;
  /** Per channel that claimed: true when its last claim took fewer than asked (nothing more is due). */
  drained: Map<string, boolean>;
  /** Channels the expansion gave items. */
  madeWork: string[];
  /** Submissions expanded. */
  expanded: number;
  /** A channel had no room or took all it asked for: more may wait for a slot to free. */
  full: boolean;
  /** The expansion gave items to a channel that had claimed already this round: another round claims them. */
  claimAgain: boolean;
}

/**
 * One round of the outbox: the due items of every channel not idle are claimed; then, when none
 * is full, the oldest queued submissions are expanded into each channel's items, and the channels
 * given items claim them. The dispatcher runs the steps in one transaction: one commit a round,
 * where a transaction per claim and per expansion made three or more, each landing just after a
 * submit batch's commit (docs/performance.md#the-dispatchers-round-in-one-transaction).
 */
export async function runRoundSteps(run: RunStep, plan: RoundPlan): Promise<RoundOutcome> {
  const outcome: RoundOutcome = { sends: [], drained: new Map(), madeWork: [], expanded: 0, full: false, claimAgain: false };
  /** Channels whose claim ran this round (and may hold locks in its transaction). */
  const claimed = new Set<string>();
  const claimEach = async (channels: readonly OutboxChannel[]) => {
    for (const channel of channels) {
      const free = plan.freeSlots(channel);
      // A channel refills its slots a quarter at a time, not one per finished send: at a steady
      // rate each claim takes several items.
      if (free < Math.max(1, Math.floor(channel.maxInFlight / 4))) {
        outcome.full = true;
        continue;
      }
      claimed.add(channel.name);
      const claim = await run(`claiming ${channel.name}'s outbound work`, (trx) => claimDueItems(trx, plan, channel, free));
      if (claim === undefined) continue;
      if (claim.send.length > 0) outcome.sends.push({ channel, items: claim.send });
      // Fewer than asked for: nothing more is due now (a claim takes the oldest due first).
      outcome.drained.set(channel.name, claim.claimed < free);
      if (claim.claimed === free) outcome.full = true;
    }
  };
  await claimEach(plan.channels.filter((channel) => !plan.idle.has(channel.name)));
  // Expand more only when every created item is out: a backlog stays compact outbox rows.
  if (outcome.full) return outcome;
  const expansion = await run('expanding the outbox', (trx) => expandOldestQueued(trx, plan));
  if (!expansion || expansion.expanded === 0) return outcome;
  outcome.expanded = expansion.expanded;
  outcome.madeWork = expansion.madeWork;
  // A channel claims at most once a round (OutboxChannel.load says why).
  for (const name of expansion.madeWork) {
    if (!claimed.has(name)) continue;
    outcome.drained.set(name, false);
    outcome.claimAgain = true;
  }
  await claimEach(plan.channels.filter((channel) => expansion.madeWork.includes(channel.name) && !claimed.has(channel.name)));
  return outcome;
}

/**
 * Leases up to `limit` of the channel's due items to this instance and has the channel load what
 * sending them needs; the items it skips are recorded `skipped`, with the reason, in this
 * transaction: they are never seen leased. Returns how many were claimed and those to send.
 */
async function claimDueItems(trx: Trx, plan: RoundPlan, channel: OutboxChannel, limit: number): Promise<{ claimed: number; send: OutboxItem[] }> {
  const now = nowIso();
  const items = { table: channel.table, retries: retries(channel.policy) };
  const leasable = channel.leasableSql?.(channel.table);
  const leased = await leaseDueItems(trx, plan.dialect, channel.table, { limit, now, instance: plan.lease.instance, retries: items.retries, leasable });
  if (!leased) return { claimed: 0, send: [] };
  const loaded = await channel.load(trx, leased);
  const skipped = loaded.filter((item) => item.skip !== undefined);
  if (skipped.length === 0) return { claimed: loaded.length, send: loaded };
  const writes = skipped.map((item) => skipOf(channel, item, now));
  // The rows are this transaction's own (just leased): no lock of another to skip.
  if (plan.dialect === 'sqlite') await recordAttemptsTogether(trx, items, writes);
  else await recordAttemptsUnlessLocked(trx, items, writes);
  return { claimed: loaded.length, send: loaded.filter((item) => item.skip === undefined) };
}

/** A skipped item's outcome: the next of its attempts, `skipped`, with the channel's reason. */
const skipOf = (channel: OutboxChannel, item: OutboxItem, at: string): AttemptWrite => ({
  id: newId('att'),
  channel: channel.name,
  itemId: item.id,
  attempt: item.attempts + 1,
  attemptedAt: at,
  outcome: 'skipped',
  status: null,
  durationMs: null,
  error: item.skip ?? null,
  state: 'skipped',
  nextAttemptAt: null,
});

/** Creates the items of the oldest queued submissions in every channel and drops their outbox rows. */
async function expandOldestQueued(trx: Trx, plan: RoundPlan): Promise<{ expanded: number; madeWork: string[] }> {
  const ids = await lockOutboxBatch(trx, plan.dialect, plan.expandBatch);
  if (ids.length === 0) return { expanded: 0, madeWork: [] };
  const madeWork: string[] = [];
  for (const channel of plan.channels) {
    if ((await channel.expand(trx, ids)) > 0) madeWork.push(channel.name);
  }
  await deleteOutboxRows(trx, ids);
  return { expanded: ids.length, madeWork };
}

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
