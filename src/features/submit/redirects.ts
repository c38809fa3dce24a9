import type { Form } from '../forms/form.types.js';

/**
 * Where a successful redirect-mode submission goes: the `redirect` field when it is an absolute
 * http(s) URL on an allowed host (the success URL's host or one of the form's allowed hosts),
 * else the success URL, else the hosted thank-you page. Never an open redirect.
 */
export function successDestination(form: Form, redirectField: string | undefined, baseUrl: string, submissionId: string): string {
  const override = redirectField === undefined ? undefined : allowedOverride(form, redirectField);
  return override ?? form.successUrl ?? hostedThanksUrl(form, baseUrl, submissionId);
}

/** Whether the form's thank-you title or message names a variable (`{{name}}`). */
export const thanksUsesVariables = (form: Form): boolean => `${form.thanksTitle ?? ''}${form.thanksMessage ?? ''}`.includes('{{');

/**
 * The hosted thank-you page; with the form named when it has a title or message of its own, and
 * the submission too when they name its fields. A submission ID has 95 random bits: only the
 * visitor who sent it (and the owner) can know it, and the page reads it for an hour only.
 */
function hostedThanksUrl(form: Form, baseUrl: string, submissionId: string): string {
  const custom = form.thanksTitle !== null || form.thanksMessage !== null;
  if (!custom) return `${baseUrl}/thanks`;
  const submission = thanksUsesVariables(form) ? `&submission=${encodeURIComponent(submissionId)}` : '';
  return `${baseUrl}/thanks?form=${encodeURIComponent(form.id)}${submission}`;
}

function allowedOverride(form: Form, value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined; // relative, protocol-relative without a base, or garbage
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return undefined;
  const allowed = new Set(form.allowedRedirectHosts.map((h) => h.toLowerCase()));
  if (form.successUrl) {
    const success = new URL(form.successUrl);
    allowed.add(success.host.toLowerCase());
    allowed.add(success.hostname.toLowerCase());
  }
  return allowed.has(url.host.toLowerCase()) || allowed.has(url.hostname.toLowerCase()) ? url.href : undefined;
}

/**
 * The form's error URL with `error=<code>` appended to its query exactly as the owner wrote it:
 * no re-encoding of what is there (`a%20b` stays, `flag` keeps no `=`), the fragment kept last.
 */
export function errorDestination(errorUrl: string, code: string): string {
  const url = new URL(errorUrl);
  const fragment = url.hash;
  url.hash = '';
  const base = url.href.endsWith('#') ? url.href.slice(0, -1) : url.href;
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}error=${encodeURIComponent(code)}${fragment}`;
}
