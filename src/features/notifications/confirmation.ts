import { isSealedPayload } from '../../platform/lib/age.js';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { NewEmailMessageRow } from '../../platform/db/schema.js';
import { chooseLanguage, isLanguage, messages } from '../../platform/i18n/i18n.js';
import { escapeHtml } from '../../platform/lib/html.js';
import { renderTemplate, submissionVariables } from '../../platform/lib/template.js';
import type { ComposedEmail } from './views/emails.js';
import type { ConfirmationCandidateRow } from './confirmation.repository.js';

/** A submission released from spam later than this after it arrived gets no confirmation. */
export const CONFIRMATION_DEADLINE_MS = 24 * 3_600_000;
/** One confirmation per address and form within this window. */
export const CONFIRMATION_ADDRESS_WINDOW_MS = 3_600_000;

export type ConfirmationSkipReason = 'rate_limited' | 'daily_cap' | 'suppressed' | 'too_late';

const singleAddress = z.email().max(254);

/** The field's value when it is exactly one valid address: the Reply-To rule of docs/email.md. */
export function confirmationAddressOf(payload: Record<string, unknown>, field: string): string | undefined {
  if (!Object.hasOwn(payload, field)) return undefined;
  const value = payload[field];
  if (typeof value !== 'string' || /[\r\n]/.test(value)) return undefined;
  const parsed = singleAddress.safeParse(value.trim());
  return parsed.success ? parsed.data : undefined;
}

/** How the suppression list and the per-address guard know an address: SHA-256 of it lower-cased. */
export const addressHash = (address: string): string => createHash('sha256').update(address.trim().toLowerCase()).digest('hex');

/**
 * The confirmation messages of a batch of released submissions: one per submission whose field
 * holds one valid address. One released from spam after the deadline carries its reason
 * (`too_late`) from the start: that decision needs no count, so it is made here, and the outbox
 * skips it with that reason when it is leased.
 */
export function confirmationRows(candidates: ConfirmationCandidateRow[], now: string): NewEmailMessageRow[] {
  const rows: NewEmailMessageRow[] = [];
  for (const c of candidates) {
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(c.payload) as Record<string, unknown>;
    } catch {
      continue;
    }
    // A sealed submission's address is ciphertext: no confirmation (docs/sealed-forms.md).
    if (isSealedPayload(payload)) continue;
    const to = confirmationAddressOf(payload, c.auto_reply_field);
    if (!to) continue;
    const tooLate = Date.parse(c.released_at) - Date.parse(c.s_created_at) > CONFIRMATION_DEADLINE_MS;
    rows.push({
      id: `cf.${c.submission_id}`,
      kind: 'confirmation',
      form_id: c.form_id,
      submission_id: c.submission_id,
      recipient_id: null,
      to_address: to,
      address_hash: addressHash(to),
      state: 'pending',
      skip_reason: tooLate ? 'too_late' : null,
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    });
  }
  return rows;
}

// ---- unsubscribe tokens ----

/**
 * `<SHA-256 of the address>.<HMAC of that with the instance secret>`, both base64url (87
 * characters): the link names the address only by its hash (what the suppression list stores),
 * and only this instance can make one.
 */
export function unsubscribeToken(secret: Buffer, address: string): string {
  const hash = addressHash(address);
  return `${Buffer.from(hash, 'hex').toString('base64url')}.${createHmac('sha256', secret).update(hash).digest('base64url')}`;
}

/** The address hash a token names, or undefined when the token is not one this instance made. */
export function addressHashOfToken(secret: Buffer, token: string): string | undefined {
  const match = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return undefined;
  const hash = Buffer.from(match[1]!, 'base64url').toString('hex');
  const expected = createHmac('sha256', secret).update(hash).digest();
  const given = Buffer.from(match[2]!, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected) ? hash : undefined;
}

// ---- the message ----

export interface ConfirmationTexts {
  subject: string;
  body: string;
  /** {form}, {host} and {url} are filled in; this is no owner template. */
  footer: string;
}

/**
 * The default texts and the footer in the submission's language: the one its pages spoke, kept
 * with it (for `auto`, the visitor's Accept-Language then); else the form's; else English.
 */
export function confirmationTexts(formLanguage: string | null, submissionLanguage: string | null = null): ConfirmationTexts {
  const chosen = submissionLanguage !== null && isLanguage(submissionLanguage) ? submissionLanguage : (formLanguage ?? undefined);
  const m = messages(chooseLanguage(chosen, undefined));
  return { subject: m['confirmation.subject'], body: m['confirmation.body'], footer: m['confirmation.footer'] };
}

const fill = (text: string, values: Record<string, string>) => text.replace(/\{(form|host|url)\}/g, (_m, k: string) => values[k] ?? '');

export function composeConfirmationEmail(options: {
  formName: string;
  subjectTemplate: string | null;
  bodyTemplate: string | null;
  submission: { id: string; createdAt: string; payload: Record<string, unknown> };
  texts: ConfirmationTexts;
  baseUrl: string;
  unsubscribeUrl: string;
}): ComposedEmail {
  const variables = submissionVariables(options.formName, options.submission);
  const subject = renderTemplate(options.subjectTemplate ?? options.texts.subject, variables, 'subject');
  const body = renderTemplate(options.bodyTemplate ?? options.texts.body, variables, 'text').replace(/\s+$/, '');
  const host = new URL(options.baseUrl).host;
  const footerText = fill(options.texts.footer, { form: options.formName, host, url: options.unsubscribeUrl });
  const footerHtml = fill(escapeHtml(options.texts.footer), {
    form: escapeHtml(options.formName),
    host: escapeHtml(host),
    url: `<a href="${escapeHtml(options.unsubscribeUrl)}">${escapeHtml(options.unsubscribeUrl)}</a>`,
  });
  return {
    subject,
    text: `${body}\n\n-- \n${footerText}\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif"><div style="white-space:pre-wrap">${escapeHtml(body)}</div>\n<hr>\n<p style="color:#666;font-size:small">${footerHtml}</p></body></html>`,
  };
}
