import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { waitUntilDelivered } from '../drain.js';

// The soak's drain wait (bench/drain.ts): the sinks' tally is read every poll, the stored rows
// (a count(*) on the database under measurement) only when the tally can end the wait.
describe("the soak's drain wait", () => {
  /** A tally that reaches one more submission on both sinks at each read, from `from`. */
  const risingTally = (from: number) => {
    let reads = 0;
    return {
      get reads() {
        return reads;
      },
      tally: async () => {
        const n = from + reads++;
        return { emails: { distinct: n }, hooks: { distinct: n } };
      },
    };
  };
  const counter = (answers: number[]) => {
    let calls = 0;
    return {
      get calls() {
        return calls;
      },
      countStored: async () => answers[Math.min(calls++, answers.length - 1)]!,
    };
  };

  it('counts the stored rows at the start and once more when the tally reaches them, not at every poll', async () => {
    const sinks = risingTally(0);
    const stored = counter([20]);
    const result = await waitUntilDelivered({ countStored: stored.countStored, tally: sinks.tally, deadlineMs: 60_000, pollMs: 0 });
    expect(result.stored).toBe(20);
    expect(result.tally.emails.distinct).toBe(20);
    expect(sinks.reads).toBe(21);
    expect(stored.calls).toBe(2);
    expect(result.ms).toBeLessThan(Number.POSITIVE_INFINITY);
  });

  it('keeps waiting when a row was committed after the first count, until the tally reaches the new count', async () => {
    const sinks = risingTally(0);
    // 10 at the start; 12 once the tally reaches 10 (two requests cut off by the load's end).
    const stored = counter([10, 12]);
    const result = await waitUntilDelivered({ countStored: stored.countStored, tally: sinks.tally, deadlineMs: 60_000, pollMs: 0 });
    expect(result.stored).toBe(12);
    expect(result.tally.emails.distinct).toBe(12);
    expect(stored.calls).toBe(3);
  });

  it('ends the drain at the tally that reached the count, not after the count that confirms it', async () => {
    let calls = 0;
    // The confirming count is a slow query (on a busy machine a count(*) took ~31 ms).
    const countStored = async () => {
      if (calls++ > 0) await delay(200);
      return 4;
    };
    const result = await waitUntilDelivered({ countStored, tally: async () => ({ emails: { distinct: 4 }, hooks: { distinct: 4 } }), deadlineMs: 60_000, pollMs: 0 });
    expect(calls).toBe(2);
    expect(result.ms).toBeLessThan(200);
  });

  it('waits for the slower sink: every email out is not enough while a hook is missing', async () => {
    let reads = 0;
    const tally = async () => {
      reads++;
      return { emails: { distinct: 5 }, hooks: { distinct: Math.min(reads, 5) } };
    };
    const result = await waitUntilDelivered({ countStored: async () => 5, tally, deadlineMs: 60_000, pollMs: 0 });
    expect(result.tally.hooks.distinct).toBe(5);
    expect(reads).toBe(5);
  });

  it('gives up at the deadline with an infinite time and what had arrived', async () => {
    const result = await waitUntilDelivered({
      countStored: async () => 3,
      tally: async () => ({ emails: { distinct: 2 }, hooks: { distinct: 3 } }),
      deadlineMs: 0,
      pollMs: 0,
    });
    expect(result.ms).toBe(Number.POSITIVE_INFINITY);
    expect(result.tally.emails.distinct).toBe(2);
    expect(result.stored).toBe(3);
  });
});
