import { setImmediate as nextTurn } from 'node:timers/promises';

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
