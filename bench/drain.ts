// How the soak (bench/soak.ts) waits for its outbound work to arrive at the sinks: the figure
// behind its "drained within 5 s of the load's end" target.
import { setTimeout as sleep } from 'node:timers/promises';

/** What the sinks have received, as bench/tally.ts counts it: distinct submissions per channel. */
export interface DeliveredTally {
  emails: { distinct: number };
  hooks: { distinct: number };
}

export interface DrainOptions<T extends DeliveredTally> {
  /** The form's stored submissions: a query, so asked only when its answer can end the wait. */
  countStored(): Promise<number>;
  /** The sinks' tally: in-process, cheap, read every `pollMs`. */
  tally(): Promise<T>;
  /** Gives up after this long: `ms` is then Infinity. */
  deadlineMs: number;
  pollMs?: number;
}

/**
 * Milliseconds until both sinks hold every stored submission of a form (or the deadline), with
 * the last count and tally. The rows are counted once at the start and again only when the tally
 * has reached the last count: a `count(*)` of the form's rows every 20 ms would take over half a
 * drain's wall time on a slow machine, PostgreSQL work that the drain being measured would share
 * the cores with. A request cut off by the load's end may commit after a count, so the wait ends
 * only on a count that the tally has reached.
 */
export async function waitUntilDelivered<T extends DeliveredTally>(options: DrainOptions<T>): Promise<{ ms: number; stored: number; tally: T }> {
  const since = performance.now();
  let stored = await options.countStored();
  for (;;) {
    const tally = await options.tally();
    // The drain ends when the sinks held every counted submission; the confirming count's own
    // time is the bench's, not the drain's.
    const readAt = performance.now();
    if (tally.emails.distinct >= stored && tally.hooks.distinct >= stored) {
      const recounted = await options.countStored();
      if (recounted === stored) return { ms: readAt - since, stored, tally };
      stored = recounted;
      continue;
    }
    if (performance.now() - since > options.deadlineMs) return { ms: Number.POSITIVE_INFINITY, stored, tally };
    await sleep(options.pollMs ?? 20);
  }
}
