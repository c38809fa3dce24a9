/** Every stored and returned timestamp: ISO 8601 UTC with milliseconds. Sorts as text. */
export function nowIso(): string {
  // The submit path asks several times per request; within a millisecond the answer is the same.
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
let lastMs = Number.NaN;
let lastIso = '';

export function isoMinus(iso: string, ms: number): string {
  return new Date(Date.parse(iso) - ms).toISOString();
}
