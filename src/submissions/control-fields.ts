import type { FieldValue, SubmissionPayload } from './submission.types.js';
import type { PostedFields } from './submit-fields.js';

const HONEYPOT_FIELDS = ['_honey', '_gotcha', 'botfield', 'url', 'website'] as const;
const TURNSTILE_FIELD = 'cf-turnstile-response';
export const CONTROL_FIELDS: ReadonlySet<string> = new Set([...HONEYPOT_FIELDS, TURNSTILE_FIELD, 'access_key', 'redirect']);

interface ControlValues {
  honeypotFilled: boolean;
  turnstileToken: string | undefined;
  accessKey: string | undefined;
  redirect: string | undefined;
}

const isFilled = (value: FieldValue | undefined): boolean =>
  Array.isArray(value) ? value.some((v) => isFilled(v)) : value !== undefined && value !== null && value !== '' && value !== false;

/** A repeated control field counts by its first value; a non-string one is treated as absent. */
const firstString = (value: FieldValue | undefined): string | undefined => {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
};

/** Splits what was posted into the control values and the payload to store. */
export function separateControlFields(posted: PostedFields): { control: ControlValues; payload: SubmissionPayload } {
  const payload = Object.create(null) as SubmissionPayload;
  for (const name of Object.keys(posted)) {
    if (!CONTROL_FIELDS.has(name)) {
      Object.defineProperty(payload, name, { value: posted[name], enumerable: true, writable: true, configurable: true });
    }
  }
  return {
    control: {
      honeypotFilled: HONEYPOT_FIELDS.some((name) => Object.hasOwn(posted, name) && isFilled(posted[name])),
      turnstileToken: Object.hasOwn(posted, TURNSTILE_FIELD) ? firstString(posted[TURNSTILE_FIELD]) : undefined,
      accessKey: Object.hasOwn(posted, 'access_key') ? firstString(posted.access_key) : undefined,
      redirect: Object.hasOwn(posted, 'redirect') ? firstString(posted.redirect) : undefined,
    },
    payload,
  };
}
