import type { Form } from '../forms/form.types.js';
import type { FieldItem, SpamReason, SubmissionPayload } from '../submissions/submission.types.js';

type Rules = Pick<Form, 'blockedTerms' | 'blockedEmails' | 'maxLinks'>;

/** `http://`, `https://` or `www.`; a URL written `https://www.…` is one link, not two. */
const LINK = /https?:\/\/(?:www\.)?|www\./gi;
/** A value that is exactly one email address (a list or a display name is not). */
const ONE_ADDRESS = /^[^\s@",;<>()[\]]+@([^\s@",;<>()[\]]+)$/;

function* textValues(payload: SubmissionPayload): Generator<string> {
  // A file is judged by clamd, not by these rules.
  const text = (v: FieldItem) => (v === null || typeof v === 'object' ? undefined : String(v));
  for (const value of Object.values(payload)) {
    for (const scalar of Array.isArray(value) ? value : [value]) {
      const t = text(scalar);
      if (t !== undefined && t !== '') yield t;
    }
  }
}

function emailIsBlocked(address: string, blocked: readonly string[]): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return blocked.some((entry) =>
    entry.startsWith('@') ? domain === entry.slice(1) || domain.endsWith(`.${entry.slice(1)}`) : entry === address,
  );
}

/**
 * The form's own spam rules (docs/spam-and-privacy.md), in this order, the first match deciding:
 * blocked terms, blocked email addresses or domains, too many links. Undefined when none matches.
 */
export function matchSpamRule(form: Rules, payload: SubmissionPayload): SpamReason | undefined {
  // Most forms have no rules: their submissions are not walked at all.
  if (form.blockedTerms.length === 0 && form.blockedEmails.length === 0 && form.maxLinks === null) return undefined;
  const values = [...textValues(payload)];
  if (form.blockedTerms.length > 0) {
    const lowered = values.map((v) => v.toLowerCase());
    if (form.blockedTerms.some((term) => lowered.some((v) => v.includes(term)))) return 'blocked_term';
  }
  if (form.blockedEmails.length > 0) {
    for (const value of values) {
      const address = value.trim().toLowerCase();
      if (ONE_ADDRESS.test(address) && emailIsBlocked(address, form.blockedEmails)) return 'blocked_email';
    }
  }
  if (form.maxLinks !== null) {
    let links = 0;
    for (const value of values) {
      links += value.match(LINK)?.length ?? 0;
      if (links > form.maxLinks) return 'too_many_links';
    }
  }
  return undefined;
}

/** The host an Origin or Referer header names, lower-case with a non-default port; undefined when unparsable. */
function headerHost(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * With a non-empty `allowedOrigins`, the request's Origin host (or without an Origin header, its
 * Referer host) must be in the list; a request with neither is not allowed. An entry without a
 * port matches that host on any port.
 */
export function originAllowed(allowedOrigins: readonly string[], origin: string | undefined, referer: string | undefined): boolean {
  if (allowedOrigins.length === 0) return true;
  const source = origin !== undefined && origin !== '' ? origin : referer;
  if (source === undefined || source === '') return false;
  const host = headerHost(source);
  if (host === undefined) return false;
  const hostname = host.replace(/:\d+$/, '');
  return allowedOrigins.some((entry) => entry === host || entry === hostname);
}
