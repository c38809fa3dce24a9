import { createHash } from 'node:crypto';
import type { ErrorCode } from '../errors.js';
import { escapeHtml } from '../lib/html.js';

const explanations: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'Some of the information you sent is missing or could not be read. Please go back, check the form and try again.',
  access_denied: 'This form needs a valid access key, and the one sent was missing or wrong. If you run this website, check the access_key field of the form.',
  origin_not_allowed: 'This form only accepts submissions from its own website.',
  form_inactive: 'This form is not accepting submissions right now.',
  not_found: 'This form does not exist. Please check the link you followed.',
  payload_too_large: 'What you sent is too large. Please shorten it and try again.',
  request_timeout: 'Your submission took too long to arrive. Please check your connection and try again.',
  rate_limited: 'Too many submissions came from your connection. Please wait a minute and try again.',
  method_not_allowed: 'Forms must be sent with POST.',
  internal_error: 'Something went wrong on our side. Please try again in a moment.',
};

const PAGE_STYLE = `
body{margin:0;min-height:100vh;display:grid;place-items:center;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;color:#1d2330}
main{max-width:32rem;margin:1rem;padding:2rem 2.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{margin:0 0 .5rem;font-size:1.5rem}p{margin:0 0 1rem;color:#4a5263}a{color:#2455d6}
`;

/**
 * The hosted pages' policy: nothing loads, nothing runs; only their own inline style, allowed by
 * its hash, so even an injected tag could do nothing.
 */
export const HOSTED_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "img-src 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function page(title: string, heading: string, text: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body><main><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p></main></body>
</html>
`;
}

export function thanksPage(): string {
  return page('Thank you', 'Thank you!', 'Your submission has been received.');
}

export function errorPage(code: string): string {
  const text = explanations[code as ErrorCode] ?? 'Your submission could not be accepted. Please go back and try again.';
  return page('Submission not accepted', 'Your submission was not accepted', text);
}
