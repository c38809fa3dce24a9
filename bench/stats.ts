// The order statistics every scenario reports. Their own module, below lib.ts and series.ts, so
// that the soak's per-second series and the load generator share them without importing each other.

/** The value below which `fraction` of the values lie (nearest rank). */
export function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * fraction) - 1))]!;
}

/** The item at the median of `value` (the upper middle of an even count), so what was measured with it comes along. */
export function medianBy<T>(items: readonly T[], value: (item: T) => number): T {
  return [...items].sort((a, b) => value(a) - value(b))[Math.floor(items.length / 2)]!;
}

export const median = (values: readonly number[]) => medianBy(values, (v) => v);
