/**
 * Whether a string can be stored in, or looked up against, a text column on both databases.
 * PostgreSQL refuses any query carrying a NUL character (the whole query fails, where SQLite
 * simply finds no row), and a lone UTF-16 surrogate has no UTF-8 form (the driver would turn it
 * into U+FFFD, so it could never match what was stored).
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Longest identifier any row can have: every ID is a short prefix plus at most 24 characters. */
const MAX_KEY_LENGTH = 100;

/** Whether a string could be the key of some row; anything else is unknown without a query. */
export function canBeKey(value: string): boolean {
  return value.length <= MAX_KEY_LENGTH && isStorableText(value);
}

/** At most `max` characters of untrusted text, for echoing it back in a message or field key. */
export function shortened(value: string, max = 64): string {
  if (value.length <= max) return value;
  // Never cut a surrogate pair in half.
  const end = /[\uD800-\uDBFF]/.test(value[max - 1]!) ? max - 1 : max;
  return `${value.slice(0, end)}…`;
}

/** The country code a submission has when none could be told (a private, loopback or unlisted address). */
export const UNKNOWN_COUNTRY = 'XX';

/** A submission's country for people to read (emails, chat messages): its code, or "unknown". */
export function countryInWords(code: string): string {
  return code === '' || code === UNKNOWN_COUNTRY ? 'unknown' : code;
}
