import type { BotCheckVendor } from '../forms/form.types.js';
import type { FieldValue, SubmissionPayload } from '../submissions/submission.types.js';
import type { PostedFields } from './submit-fields.js';

const HONEYPOT_FIELDS = ['_honey', '_gotcha', 'botfield', 'url', 'website'] as const;
/** The field each bot-check vendor's widget posts its response in (docs/api.md, control fields). */
const BOT_CHECK_FIELDS: Readonly<Record<Exclude<BotCheckVendor, 'none'>, string>> = {
  turnstile: 'cf-turnstile-response',
  hcaptcha: 'h-captcha-response',
  recaptcha: 'g-recaptcha-response',
  altcha: 'altcha',
};
export const CONTROL_FIELDS: ReadonlySet<string> = new Set([...HONEYPOT_FIELDS, ...Object.values(BOT_CHECK_FIELDS), 'access_key', 'redirect']);

interface ControlValues {
  honeypotFilled: boolean;
  /** The response in the field of the form's bot-check vendor; undefined when absent or the form has none. */
  botCheckResponse: string | undefined;
  redirect: string | undefined;
}

const isFilled = (value: FieldValue | undefined): boolean =>
  Array.isArray(value) ? value.some((v) => isFilled(v)) : value !== undefined && value !== null && value !== '' && value !== false;

/** A repeated control field counts by its first value; a non-string one is treated as absent. */
const firstString = (value: FieldValue | undefined): string | undefined => {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
};

function botCheckResponse(posted: PostedFields, botCheck: BotCheckVendor): string | undefined {
  if (botCheck === 'none') return undefined;
  const field = BOT_CHECK_FIELDS[botCheck];
  return Object.hasOwn(posted, field) ? firstString(posted[field]) : undefined;
}

/** The posted access_key, read before the rest is split: a refused key needs nothing else. */
export function postedAccessKey(posted: PostedFields): string | undefined {
  return Object.hasOwn(posted, 'access_key') ? firstString(posted.access_key) : undefined;
}

/** Splits what was posted into the control values and the payload to store. */
export function separateControlFields(
  posted: PostedFields,
  botCheck: BotCheckVendor = 'none',
): { control: ControlValues; payload: SubmissionPayload } {
  const payload = Object.create(null) as SubmissionPayload;
  for (const name of Object.keys(posted)) {
    // A null-prototype object: assigning "__proto__" makes an own property like any name.
    if (!CONTROL_FIELDS.has(name)) payload[name] = posted[name]!;
  }
  return {
    control: {
      honeypotFilled: HONEYPOT_FIELDS.some((name) => Object.hasOwn(posted, name) && isFilled(posted[name])),
      botCheckResponse: botCheckResponse(posted, botCheck),
      redirect: Object.hasOwn(posted, 'redirect') ? firstString(posted.redirect) : undefined,
    },
    payload,
  };
}
