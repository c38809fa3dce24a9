import { Encrypter, armor } from 'age-encryption';
import type { JsonFields } from './submit.js';

/**
 * The fields the server reads itself and never stores (honeypots, bot-check responses, the
 * access key, the redirect): a sealed form sends them in clear beside the sealed fields. The
 * server's list (src/features/submit/control-fields.ts) and this one are checked to be the same.
 */
export const CONTROL_FIELDS: readonly string[] = [
  '_honey',
  '_gotcha',
  'botfield',
  'url',
  'website',
  'cf-turnstile-response',
  'h-captcha-response',
  'g-recaptcha-response',
  'altcha',
  'access_key',
  'redirect',
];

/** What a sealed form's plaintext is: every field by name, a repeated name as a list. */
export type SealedFields = Record<string, string | string[]>;

/**
 * Splits a form's entries into the fields to seal and the control fields sent in clear. A chosen
 * file cannot be sealed (sealed forms take no files): that is an error, not a silent drop.
 */
export function splitEntries(data: FormData): { fields: SealedFields; control: Record<string, string> } {
  const fields: SealedFields = {};
  const control: Record<string, string> = {};
  data.forEach((value, name) => {
    if (typeof value !== 'string') {
      if (value.size > 0 || value.name) throw new Error('A sealed form cannot send files.');
      return;
    }
    if (CONTROL_FIELDS.indexOf(name) >= 0) {
      // The server counts a repeated control field by its first value.
      if (!Object.prototype.hasOwnProperty.call(control, name)) control[name] = value;
      return;
    }
    const had = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
    fields[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  });
  return { fields, control };
}

/** The fields as JSON, encrypted to every recipient as one armored age file. */
export async function sealFields(fields: SealedFields, recipients: readonly string[]): Promise<string> {
  if (recipients.length === 0) throw new Error('The form names no recipient to seal to.');
  const encrypter = new Encrypter();
  for (const recipient of recipients) encrypter.addRecipient(recipient);
  return armor.encode(await encrypter.encrypt(JSON.stringify(fields)));
}

/** The JSON body a sealed form posts: `sealed` and the control fields, nothing else in clear. */
export async function sealedBody(data: FormData, recipients: readonly string[]): Promise<JsonFields> {
  const { fields, control } = splitEntries(data);
  const body: JsonFields = { ...control };
  body.sealed = await sealFields(fields, recipients);
  return body;
}

/** What the sealing chunk puts on `window.FormgateSeal` for the browser script. */
export interface Sealer {
  sealedBody: typeof sealedBody;
  sealFields: typeof sealFields;
}
