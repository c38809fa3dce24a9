import { describe, expect, it } from 'vitest';
import { BatchedWrites } from '../../src/platform/lib/batched-writes.js';

/** A BatchedWrites that records each group it writes and when the write started. */
function recording(minGapMs?: number) {
  const groups: Array<{ items: number[]; at: number }> = [];
  const writes = new BatchedWrites<number>(async (items) => void groups.push({ items, at: performance.now() }), minGapMs === undefined ? {} : { minGapMs });
  return { groups, writes };
}

describe('BatchedWrites', () => {
  it('writes what arrives in one turn of the event loop as one group, and each write resolves with it', async () => {
    const { groups, writes } = recording();
    await Promise.all([writes.write(1), writes.write(2), writes.write(3)]);
    expect(groups.map((g) => g.items)).toEqual([[1, 2, 3]]);
  });

  it('with a gap, starts no group sooner than the gap after the previous one, and gathers what arrives meanwhile', async () => {
    const { groups, writes } = recording(30);
    await writes.write(1);
    // Arriving one at a time right after a write, these would be three groups without the gap.
    const later = [writes.write(2)];
    await Promise.resolve();
    later.push(writes.write(3));
    await new Promise((resolve) => setImmediate(resolve));
    later.push(writes.write(4));
    await Promise.all(later);
    expect(groups.map((g) => g.items)).toEqual([[1], [2, 3, 4]]);
    expect(groups[1]!.at - groups[0]!.at).toBeGreaterThanOrEqual(29);
  });

  it('rejects every write of a group whose write failed, and writes the next group', async () => {
    let fail = true;
    const written: number[][] = [];
    const writes = new BatchedWrites<number>(async (items) => {
      if (fail) throw new Error('database gone');
      written.push(items);
    });
    const results = await Promise.allSettled([writes.write(1), writes.write(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await writes.write(3);
    expect(written).toEqual([[3]]);
  });
});
