import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/** A wait this long for the next turn of the event loop means other callbacks were queued. */
const BUSY_WAIT_MS = 1;

/**
 * Between two slices of a long job on the event loop (a page of an export): lets everything
 * already waiting run first. When something was waiting (the server is busy), the job sits out
 * `busyTurns` more turns of the loop, so under load it takes about one turn in `busyTurns + 1`
 * and submissions keep their latency; alone, it runs at full speed. `clock` is for tests: a process
 * descheduled by a loaded machine sees a slow turn even with nothing waiting.
 */
export async function yieldToWaitingWork(busyTurns = 2, clock: () => number = () => performance.now()): Promise<void> {
  const started = clock();
  await nextTurn();
  if (clock() - started < BUSY_WAIT_MS) return;
  for (let turn = 0; turn < busyTurns; turn++) await nextTurn();
}

export interface ProportionalPause {
  /** The pause is `factor` × the step's hold: the job then takes at most 1 / (factor + 1) of the loop. */
  factor: number;
  /** At most this long (default 1 s): a step held up by something else (another process's lock) does not stop the job for long. */
  maxMs?: number;
  /** Cuts the pause short (the job's owner is closing). */
  signal: AbortSignal;
  /** false: the pause does not keep the process alive (a server's background job; a CLI's job leaves it true). */
  ref?: boolean;
}

/**
 * Between two steps of a background job that holds the event loop while it runs (a transaction
 * of deletions, an FTS5 merge step on SQLite): waits in proportion to how long the last step
 * held the loop, so requests meet one such hold at a time, not a streak of them.
 */
export function pauseInProportion(heldMs: number, { factor, maxMs = 1000, signal, ref = true }: ProportionalPause): Promise<void> {
  return sleep(Math.min(maxMs, Math.round(heldMs * factor)), undefined, { signal, ref }).catch(() => undefined);
}
