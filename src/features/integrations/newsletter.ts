import { z } from 'zod';

/**
 * What the mailing-list kinds (Mailchimp, listmonk) share: who may be signed up (a consent field
 * checked, one valid address), and the name a sign-up carries.
 */

export const DEFAULT_CONSENT_FIELD = 'subscribe';
/** The values of a ticked checkbox, as browsers and form libraries send them. */
const CHECKED = new Set(['on', 'true', 'yes', '1']);
const EMAIL_FIELD = 'email';
const singleAddress = z.email().max(254);

export const NO_CONSENT = 'no consent';
export const NO_EMAIL = 'no valid email address';

/** A field of the payload by its name, letter case aside (the exact name first). */
function fieldValue(payload: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  const key = Object.keys(payload).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : payload[key];
}

/**
 * A checkbox is ticked when its value is one of on, true, yes, 1 (any letter case) or JSON true;
 * a repeated field when any of its values is (a hidden `0` before the checkbox's `1`).
 */
export function consentGiven(payload: Record<string, unknown>, field: string): boolean {
  const value = fieldValue(payload, field);
  const ticked = (v: unknown) => v === true || v === 1 || (typeof v === 'string' && CHECKED.has(v.trim().toLowerCase()));
  return Array.isArray(value) ? value.some(ticked) : ticked(value);
}

/** The `email` field's value when it is exactly one valid address. */
export function signUpAddress(fields: Record<string, unknown>): string | undefined {
  const value = fieldValue(fields, EMAIL_FIELD);
  if (typeof value !== 'string' || /[\r\n,;]/.test(value)) return undefined;
  const parsed = singleAddress.safeParse(value.trim());
  return parsed.success ? parsed.data : undefined;
}

/** Why a submission signs no one up, or undefined when it does. */
export function signUpSkip(settings: Record<string, unknown>, payload: Record<string, unknown>): string | undefined {
  const field = typeof settings.consentField === 'string' && settings.consentField !== '' ? settings.consentField : DEFAULT_CONSENT_FIELD;
  if (!consentGiven(payload, field)) return NO_CONSENT;
  if (signUpAddress(payload) === undefined) return NO_EMAIL;
  return undefined;
}

/** The consent field's name as the owner typed it: one line, at most 256 characters (a field name's limit). */
export function consentFieldProblem(value: string): string | undefined {
  if (value.length > 256 || /[\u0000-\u001f]/.test(value)) return 'must be a field name of at most 256 characters';
  return undefined;
}

export interface SignUpName {
  first: string;
  last: string;
}

/**
 * The first and last name of a sign-up: `first_name`/`last_name` (or `firstname`, `fname`…)
 * when the form asks for them, else a single `name` split at its first space.
 */
export function signUpName(fields: ReadonlyArray<{ name: string; value: string }>): SignUpName {
  const find = (...names: string[]) => fields.find((f) => names.includes(f.name.toLowerCase().replace(/[\s_-]/g, '')))?.value.trim() ?? '';
  const first = find('firstname', 'fname', 'givenname');
  const last = find('lastname', 'lname', 'surname', 'familyname');
  if (first !== '' || last !== '') return { first, last };
  const full = find('name', 'fullname', 'yourname').replace(/\s+/g, ' ');
  const space = full.indexOf(' ');
  return space < 0 ? { first: full, last: '' } : { first: full.slice(0, space), last: full.slice(space + 1) };
}

