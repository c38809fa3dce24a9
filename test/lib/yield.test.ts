import { describe, expect, it } from 'vitest';
import { yieldToWaitingWork } from '../../src/lib/yield.js';

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

  it('returns after one turn when nothing else is waiting', async () => {
    const idle = otherWork(0);
    await yieldToWaitingWork(5);
    idle.stop();
    expect(idle.turns()).toBeLessThan(3);
  });
});
