import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/platform/lib/bounded-memo.js';

describe('BoundedMemo', () => {
  it('computes each key once while it is remembered, an undefined answer included', () => {
    const memo = new BoundedMemo<string, string | undefined>(10);
    const computed: string[] = [];
    const compute = (key: string) => (computed.push(key), key === 'none' ? undefined : key.toUpperCase());
    for (let round = 0; round < 3; round++) {
      expect(memo.get('a', compute)).toBe('A');
      expect(memo.get('none', compute)).toBeUndefined();
    }
    expect(computed).toEqual(['a', 'none']);
  });

  it('never holds more than its capacity: when full it forgets everything before keeping the next answer', () => {
    const memo = new BoundedMemo<number, number>(3);
    let calls = 0;
    const square = (n: number) => (calls++, n * n);
    for (const n of [1, 2, 3]) memo.get(n, square);
    expect(memo.get(1, square)).toBe(1);
    expect(calls).toBe(3);
    expect(memo.get(4, square)).toBe(16); // the fourth key empties the memo, then is kept
    expect(calls).toBe(4);
    expect(memo.get(4, square)).toBe(16);
    expect(calls).toBe(4);
    expect(memo.get(1, square)).toBe(1); // forgotten: computed again, answered the same
    expect(calls).toBe(5);
  });
});
