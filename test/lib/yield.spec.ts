import { describe, expect, it } from 'vitest';
import { pauseInProportion, yieldToWaitingWork } from '../../src/platform/lib/yield.js';

/** Other work on the loop: a callback every turn, each blocking for `blockMs` (0: instant). */
function otherWork(blockMs: number) {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns++;
    const until = performance.now() + blockMs;
    while (performance.now() < until); // CPU work, as a request handler does
    setImmediate(turn);
  };
  setImmediate(turn);
  return { turns: () => turns, stop: () => (running = false) };
}

describe('yieldToWaitingWork', () => {
  it('sits out extra turns of the loop while other work keeps it busy', async () => {
    const busy = otherWork(3);
    await yieldToWaitingWork(2);
    busy.stop();
    // One turn to find the loop busy, then two more sat out: the other work ran at least three times.
    expect(busy.turns()).toBeGreaterThanOrEqual(3);
  });

  it('returns after one turn when that turn was quick (nothing else was waiting)', async () => {
    // A frozen clock: the turn looks instant however loaded the test machine is.
    const idle = otherWork(0);
    await yieldToWaitingWork(5, () => 0);
    idle.stop();
    expect(idle.turns()).toBeLessThan(3);
  });

  it('sits out the extra turns whenever the first turn was slow, measured by its clock', async () => {
    let now = 0;
    const idle = otherWork(0);
    await yieldToWaitingWork(5, () => (now += 2));
    idle.stop();
    // One turn, then five more sat out: the other callback ran on each of them.
    expect(idle.turns()).toBeGreaterThanOrEqual(6);
  });
});

describe('pauseInProportion', () => {
  it('waits factor × the step\'s hold', async () => {
    const started = performance.now();
    await pauseInProportion(20, { factor: 3, signal: new AbortController().signal });
    // Timers round to the millisecond, so allow one early.
    expect(performance.now() - started).toBeGreaterThanOrEqual(59);
  });

  it('waits at most maxMs after a long hold', async () => {
    const started = performance.now();
    // Uncapped this would be 40 s, past the test's timeout.
    await pauseInProportion(10_000, { factor: 4, maxMs: 30, signal: new AbortController().signal });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(29);
    expect(waited).toBeLessThan(10_000);
  });

  it('waits at most a second unless told otherwise', async () => {
    const started = performance.now();
    await pauseInProportion(10_000, { factor: 4, signal: new AbortController().signal });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(999);
    expect(waited).toBeLessThan(10_000);
  });

  it('resolves, without throwing, as soon as its signal aborts', async () => {
    const closing = new AbortController();
    let over = false;
    const pause = pauseInProportion(10_000, { factor: 9, maxMs: 60_000, signal: closing.signal }).then(() => (over = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(over).toBe(false);
    closing.abort();
    await pause;
    expect(over).toBe(true);
  });

  it('resolves at once when its signal has already aborted', async () => {
    await expect(pauseInProportion(10_000, { factor: 9, maxMs: 60_000, signal: AbortSignal.abort() })).resolves.toBeUndefined();
  });
});
