import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasIdShape, newId, newTimeOrderedId, randomBase62 } from '../../src/platform/lib/ids.js';

describe('IDs', () => {
  it('are a prefix and 16 base62 characters, and do not repeat', () => {
    const ids = Array.from({ length: 5000 }, () => newId('frm'));
    for (const id of ids) expect(id).toMatch(/^frm_[0-9A-Za-z]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('use every base62 character with about the same frequency (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(62 * 2000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 2,000 expected per character; 6 standard deviations either way.
    for (const count of counts.values()) expect(Math.abs(count - 2000)).toBeLessThan(6 * Math.sqrt(2000));
  });

  it('time-ordered IDs sort as text in the order of their milliseconds', () => {
    const year8000 = Date.UTC(8000, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: year8000 }), fc.integer({ min: 1, max: year8000 }), (a, gap) => {
        const b = Math.min(a + gap, year8000);
        if (b === a) return;
        expect(newTimeOrderedId('sub', a) < newTimeOrderedId('sub', b)).toBe(true);
      }),
    );
  });

  it('time-ordered IDs carry 16 random characters after the time', () => {
    const now = Date.now();
    const [first, second] = [newTimeOrderedId('sub', now), newTimeOrderedId('sub', now)];
    expect(first).toMatch(/^sub_[0-9A-Za-z]{24}$/);
    expect(first.slice(0, 12)).toBe(second.slice(0, 12));
    expect(first).not.toBe(second);
  });

  it('hasIdShape accepts every ID newId makes and nothing else', () => {
    for (let i = 0; i < 2000; i++) expect(hasIdShape('frm', newId('frm'))).toBe(true);
    const frm = newId('frm');
    for (const other of [
      newId('sub'),
      `${frm}x`,
      frm.slice(0, -1),
      `frm-${frm.slice(4)}`,
      `FRM_${frm.slice(4)}`,
      `${frm.slice(0, -1)}-`,
      `${frm.slice(0, -1)}é`,
      `${frm}\n`,
      `${frm.slice(0, -1)}\u0000`,
      '',
      'frm_',
      'x'.repeat(10_000),
    ]) {
      expect(hasIdShape('frm', other), JSON.stringify(other)).toBe(false);
    }
  });
});
