import { createHash } from 'node:crypto';
import type { ErrorCode, FieldErrors } from '../../../platform/errors.js';
import { messages, type Language, type MessageKey } from '../../../platform/i18n/i18n.js';
import { escapeHtml } from '../../../platform/lib/html.js';

/** Error codes the hosted error page explains in the visitor's language. */
const explainedCodes = new Set<ErrorCode>([
  'validation_failed', 'access_denied', 'origin_not_allowed', 'form_inactive', 'not_found', 'payload_too_large', 'request_timeout', 'rate_limited',
  'method_not_allowed', 'internal_error',
]);

const PAGE_STYLE = `
body{margin:0;min-height:100vh;display:grid;place-items:center;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;color:#1d2330}
main{max-width:32rem;margin:1rem;padding:2rem 2.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{margin:0 0 .5rem;font-size:1.5rem}p,li{margin:0 0 1rem;color:#4a5263;white-space:pre-line;overflow-wrap:anywhere}a{color:#2455d6}
ul{margin:0 0 1rem;padding-left:1.25rem}li{margin:0 0 .25rem}li strong{color:#1d2330}
:root{color-scheme:light dark}
@media (prefers-color-scheme:dark){body{background:#10131a;color:#e3e7ef}main{background:#1a1f2a;box-shadow:0 1px 3px rgba(0,0,0,.5)}p,li{color:#c3cad8}li strong{color:#e3e7ef}a{color:#9db8ff}}
`;

/**
 * "Back to the site" on the error page goes back in the browser's history when there is one, so
 * the form comes back as the visitor left it, typed text included (following the link would load
 * it empty). Without JavaScript, or in a tab of its own, the link is followed.
 */
const BACK_SCRIPT =
  "var a=document.querySelector('a[data-back]');if(a)a.addEventListener('click',function(e){if(history.length>1){e.preventDefault();history.back();}});";

/**
 * The hosted pages' policy: nothing loads; only their own inline style and back-link script run,
 * allowed by their hashes, so even an injected tag could do nothing.
 */
export const HOSTED_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  `script-src 'sha256-${createHash('sha256').update(BACK_SCRIPT).digest('base64')}'`,
  "img-src 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Every text arrives unescaped and is escaped here; `extra` is HTML this module built. */
function page(language: Language, title: string, heading: string, text: string, extra = '', script = false): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body><main><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p>${extra}</main>${script ? `<script>${BACK_SCRIPT}</script>` : ''}</body>
</html>
`;
}

export interface ThanksContent {
  /** The form's own title and message (plain text; line breaks kept). */
  title?: string | null;
  message?: string | null;
  /** An http(s) page to link back to, already checked. */
  backUrl?: string | undefined;
}

/** "Back to the site", to the page the route derived from the Referer (never from the query). */
function backLink(language: Language, backUrl: string | undefined, historyBack = false): string {
  if (!backUrl) return '';
  return `<p><a href="${escapeHtml(backUrl)}" rel="noopener"${historyBack ? ' data-back' : ''}>${escapeHtml(messages(language)['thanks.back'])}</a></p>`;
}

/** Each refused field by name, with why, in the page's language. */
function fieldList(language: Language, fieldErrors: FieldErrors | undefined): string {
  const names = fieldErrors ? Object.keys(fieldErrors) : [];
  if (names.length === 0) return '';
  const items = names.map((name) => `<li><strong>${escapeHtml(name)}</strong>: ${escapeHtml(fieldErrors![name]!)}</li>`).join('');
  return `<p>${escapeHtml(messages(language)['error.fields'])}</p><ul>${items}</ul>`;
}

export function thanksPage(language: Language, content: ThanksContent = {}): string {
  const m = messages(language);
  const heading = content.title ?? m['thanks.heading'];
  return page(language, content.title ?? m['thanks.title'], heading, content.message ?? m['thanks.text'], backLink(language, content.backUrl));
}

/**
 * The error page; `fieldErrors` (already in the page's language) names each refused field, and
 * `detail` (in the page's language too) says more than the code's text, such as which file went
 * over which limit.
 */
export function errorPage(language: Language, code: string, backUrl?: string, fieldErrors?: FieldErrors, detail?: string): string {
  const m = messages(language);
  const text = detail ?? (explainedCodes.has(code as ErrorCode) ? m[`error.${code}` as MessageKey] : m['error.default']);
  return page(language, m['error.title'], m['error.heading'], text, fieldList(language, fieldErrors) + backLink(language, backUrl, true), backUrl !== undefined);
}
