import { describe, expect, it } from 'vitest';
import { percentile } from '../stats.js';

// The bench's p99s (the soak's steady tail, the dashboard's GETs) are nearest-rank percentiles:
// the smallest value with at least that fraction of the values at or below it.
describe('the bench percentile', () => {
  const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('is the nearest rank, whatever the order of the values', () => {
    expect(percentile(oneToN(100), 0.99)).toBe(99);
    expect(percentile(oneToN(200).reverse(), 0.99)).toBe(198);
    expect(percentile(oneToN(200), 0.5)).toBe(100);
    expect(percentile([3.25, 1.5, 2.75], 0.5)).toBe(2.75);
  });

  it('reads the ends and a single value without leaving the list', () => {
    expect(percentile(oneToN(10), 0)).toBe(1);
    expect(percentile(oneToN(10), 1)).toBe(10);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.99)).toBeNaN();
  });

  it('leaves its input as it was', () => {
    const values = [3, 1, 2];
    percentile(values, 0.5);
    expect(values).toEqual([3, 1, 2]);
  });
});
