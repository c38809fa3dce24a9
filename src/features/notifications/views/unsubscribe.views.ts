import { createHash } from 'node:crypto';
import { messages, type Language } from '../../../platform/i18n/i18n.js';
import { escapeHtml } from '../../../platform/lib/html.js';

const PAGE_STYLE = `
body{margin:0;min-height:100vh;display:grid;place-items:center;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;color:#1d2330}
main{max-width:32rem;margin:1rem;padding:2rem 2.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{margin:0 0 .5rem;font-size:1.5rem}p{margin:0 0 1rem;color:#4a5263}button{font:inherit;padding:.5rem 1rem}
:root{color-scheme:light dark}
@media (prefers-color-scheme:dark){body{background:#10131a;color:#e3e7ef}main{background:#1a1f2a;box-shadow:0 1px 3px rgba(0,0,0,.5)}p{color:#c3cad8}}
`;

/** Nothing loads or runs; the one form posts back to this same page. */
export const UNSUBSCRIBE_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function page(language: Language, heading: string, body: string): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(heading)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body><main><h1>${escapeHtml(heading)}</h1>${body}</main></body>
</html>
`;
}

/** GET: nothing changes until the visitor presses the button (mail scanners open links). */
export function unsubscribeConfirmPage(language: Language): string {
  const m = messages(language);
  return page(
    language,
    m['unsubscribe.confirm.heading'],
    `<p>${escapeHtml(m['unsubscribe.confirm.text'])}</p><form method="post"><button type="submit">${escapeHtml(m['unsubscribe.button'])}</button></form>`,
  );
}

export function unsubscribedPage(language: Language): string {
  const m = messages(language);
  return page(language, m['unsubscribe.done.heading'], `<p>${escapeHtml(m['unsubscribe.done.text'])}</p>`);
}

export function invalidUnsubscribeLinkPage(language: Language): string {
  const m = messages(language);
  return page(language, m['unsubscribe.invalid.heading'], `<p>${escapeHtml(m['unsubscribe.invalid.text'])}</p>`);
}
