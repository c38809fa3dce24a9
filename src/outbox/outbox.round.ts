import type { Dialect, Trx } from '../db/database.js';
import { nowIso } from '../lib/time.js';
import type { ClaimLease, OutboxChannel, OutboxItem } from './outbox.channel.js';
import { retries } from './outbox.policy.js';
import { deleteOutboxRows, leaseDueItems, lockOutboxBatch } from './outbox.repository.js';

/**
 * Runs one step of a round: in the round's one transaction (a failure aborts the round), or in a
 * transaction of its own whose failure is logged and skipped (`undefined`).
 */
export type RunStep = <T>(what: string, step: (trx: Trx) => Promise<T>) => Promise<T | undefined>;

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
      const items = await run(`claiming ${channel.name}'s outbound work`, (trx) => claimDueItems(trx, plan, channel, free));
      if (items === undefined) continue;
      if (items.length > 0) outcome.sends.push({ channel, items });
      // Fewer than asked for: nothing more is due now (a claim takes the oldest due first).
      outcome.drained.set(channel.name, items.length < free);
      if (items.length === free) outcome.full = true;
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

/** Leases up to `limit` of the channel's due items to this instance, and has the channel load what sending them needs. */
async function claimDueItems(trx: Trx, plan: RoundPlan, channel: OutboxChannel, limit: number): Promise<OutboxItem[]> {
  const leased = await leaseDueItems(trx, plan.dialect, channel.table, { limit, now: nowIso(), instance: plan.lease.instance, retries: retries(channel.policy) });
  return leased ? channel.load(trx, leased) : [];
}

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
