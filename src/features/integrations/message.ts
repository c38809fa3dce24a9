import { isSealedPayload } from '../../platform/lib/age.js';
import { countryInWords, UNKNOWN_COUNTRY } from '../../platform/lib/text.js';
import { formatTimeInWords, UTC } from '../../platform/lib/time-zone.js';
import { describeFileValue, isFileValue } from '../../platform/lib/file-links.js';

/**
 * The platform-neutral content of one chat message for a submission (docs/integrations.md): form
 * name, each field as name and value, time, country and the dashboard link. Platform formats turn
 * it into their payload, escaping and cutting to their own limits.
 */
export interface SubmissionMessage {
  formName: string;
  fields: Array<{ name: string; value: string }>;
  createdAt: string;
  country: string;
  link: string;
}

export interface SubmissionForMessage {
  id: string;
  createdAt: string;
  country: string;
  payload: Record<string, unknown>;
}

function fieldText(value: unknown): string {
  if (Array.isArray(value)) return value.map(fieldText).join(', ');
  if (value === null || value === undefined) return '';
  if (isFileValue(value)) return describeFileValue(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A sealed submission's message says only that it arrived: its ciphertext is no use in a chat (docs/sealed-forms.md). */
const SEALED_FIELDS = [{ name: 'sealed', value: 'A sealed submission arrived: open it on the dashboard to read it.' }];

export function buildSubmissionMessage(formName: string, submission: SubmissionForMessage, link: string): SubmissionMessage {
  return {
    formName,
    fields: isSealedPayload(submission.payload)
      ? SEALED_FIELDS
      : Object.entries(submission.payload).map(([name, value]) => ({ name, value: fieldText(value) })),
    createdAt: submission.createdAt,
    country: submission.country,
    link,
  };
}

/** The sample the test button and `formgate integrations test` send. */
export function sampleMessage(formName: string, link: string): SubmissionMessage {
  return {
    formName,
    fields: [
      { name: 'email', value: 'test@example.com' },
      { name: 'message', value: 'This is a test message from Formgate.' },
    ],
    createdAt: new Date().toISOString(),
    country: UNKNOWN_COUNTRY,
    link,
  };
}

export const CUT_MARK = '… (cut)';

/** At most `max` UTF-16 units, never splitting a surrogate pair, marked when cut. */
export function cut(value: string, max: number, mark = CUT_MARK): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - mark.length);
  if (end > 0 && /[\uD800-\uDBFF]/.test(value[end - 1]!)) end -= 1;
  return value.slice(0, end) + mark;
}

/** At most `maxBytes` bytes of UTF-8, never splitting a character, marked when cut. */
export function cutBytes(value: string, maxBytes: number, mark = CUT_MARK): string {
  if (Buffer.byteLength(value) <= maxBytes) return value;
  const budget = maxBytes - Buffer.byteLength(mark);
  let out = '';
  let used = 0;
  for (const char of value) {
    const size = Buffer.byteLength(char);
    if (used + size > budget) break;
    out += char;
    used += size;
  }
  return out + mark;
}

export const moreFieldsNote = (count: number) => `… and ${count} more field${count === 1 ? '' : 's'} not shown: open the submission for all of them.`;

/**
 * Breaks every mention a platform could read in submitter text (`@everyone`, `@here`,
 * `@channel`, `@username`): a zero-width space after an `@` that starts a word. An address such
 * as `ada@example.com` (the `@` inside a word) is left as it is; no platform reads it as a mention.
 */
export function defuseMentions(text: string): string {
  return text.replace(/(^|[^\p{L}\p{N}_.+-])@/gu, '$1@\u200b');
}

/** The footer line of every format: time and country said as the notification emails say them. */
export const footerText = (m: SubmissionMessage) => `${formatTimeInWords(UTC, m.createdAt)} · country: ${countryInWords(m.country)}`;

export const titleText = (m: SubmissionMessage) => `New submission: ${m.formName.replace(/[\r\n]+/g, ' ')}`;
