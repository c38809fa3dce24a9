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

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * An ISO 8601 date (`2026-11-22`, the start of that UTC day) or date-time with a zone (`Z` or
 * `±hh:mm`; seconds and fractions optional) as ISO UTC with milliseconds; undefined for
 * anything else, a 30 February or a time without a zone included (its instant is unknown).
 */
export function parseIsoInstant(text: string): string | undefined {
  const m = ISO_INSTANT.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', , zone] = m;
  if (m[4] !== undefined && zone === undefined) return undefined;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  if (zone && zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59)) return undefined;
  const ms = Date.parse(m[4] === undefined ? `${y}-${mo}-${d}T00:00:00Z` : text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
