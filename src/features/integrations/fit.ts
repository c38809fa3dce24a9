import { CUT_MARK, defuseMentions, moreFieldsNote, type SubmissionMessage } from './message.js';

/** Escapes one character (or code point) of untrusted text for a platform's markup. */
export type CharEscaper = (char: string) => string;

/**
 * Escapes untrusted text where whether a character needs an escape depends on its neighbours:
 * one escaped unit per code point, so that a cut never splits an escape.
 */
export interface TextEscaper {
  escapeEach(chars: readonly string[]): string[];
}

export type Escaper = CharEscaper | TextEscaper;

export const noEscape: CharEscaper = (char) => char;

const escapeEach = (escape: Escaper, chars: readonly string[]): string[] =>
  typeof escape === 'function' ? chars.map((char) => escape(char)) : escape.escapeEach(chars);

/**
 * Submitter text made safe for a platform: mentions defused, each character escaped, and cut so
 * that the escaped result (with the cut mark) is at most `max` long. Cutting the raw text by
 * characters never leaves half an escape sequence or half a surrogate pair behind.
 */
export function fitEscaped(raw: string, max: number, escape: Escaper, measure: (s: string) => number = (s) => s.length): string {
  const parts = escapeEach(escape, [...defuseMentions(raw)]);
  let total = 0;
  for (const escaped of parts) total += measure(escaped);
  if (total <= max) return parts.join('');
  const budget = max - measure(CUT_MARK);
  let out = '';
  let used = 0;
  for (const escaped of parts) {
    const size = measure(escaped);
    if (used + size > budget) break;
    out += escaped;
    used += size;
  }
  return out + CUT_MARK;
}

export interface FieldLimits {
  maxFields: number;
  maxName: number;
  maxValue: number;
  /** Room for every field's name and value together (the caller's unit). */
  maxTotal: number;
  escape: Escaper;
  /** The size of a rendered name/value pair beyond the two strings themselves (separators). */
  overhead?: number;
  measure?: (s: string) => number;
}

export interface FittedFields {
  fields: Array<{ name: string; value: string }>;
  /** Fields left out for lack of room; the format says so with moreFieldsNote. */
  omitted: number;
  note: string | undefined;
}

/**
 * The message's fields escaped and cut to a platform's limits: each name and value to its own
 * limit, as many fields as fit the count and the total, the rest counted (with room always kept
 * for the note that says so).
 */
export function fitFields(message: SubmissionMessage, limits: FieldLimits): FittedFields {
  const measure = limits.measure ?? ((s: string) => s.length);
  const overhead = limits.overhead ?? 0;
  const all = message.fields;
  const noteRoom = measure(moreFieldsNote(all.length)) + overhead + 8;
  const fields: FittedFields['fields'] = [];
  let used = 0;
  // When not all fit, one slot is kept for the note that says so.
  const cap = all.length <= limits.maxFields ? all.length : limits.maxFields - 1;
  for (const [index, field] of all.slice(0, cap).entries()) {
    const isLast = index === all.length - 1;
    const name = fitEscaped(field.name || '(no name)', limits.maxName, limits.escape, measure);
    const room = limits.maxTotal - used - measure(name) - overhead - (isLast ? 0 : noteRoom);
    if (room < 20) break;
    const value = fitEscaped(field.value, Math.min(limits.maxValue, room), limits.escape, measure);
    fields.push({ name, value });
    used += measure(name) + measure(value) + overhead;
  }
  const omitted = all.length - fields.length;
  return { fields, omitted, note: omitted > 0 ? moreFieldsNote(omitted) : undefined };
}
