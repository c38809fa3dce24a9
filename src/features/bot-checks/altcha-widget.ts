import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { messages, type Language } from '../../platform/i18n/i18n.js';
import { escapeHtml } from '../../platform/lib/html.js';

/** Where Formgate serves the `altcha` package's widget: snippets load nothing from another host. */
export const ALTCHA_ASSET_PATH = '/v1/assets/altcha.js';

/** The `altcha` package's dist folder (its exports name no package.json, so found through its main entry). */
const widgetDist = () => dirname(createRequire(import.meta.url).resolve('altcha'));

let widgetVersion: string | undefined;
/** The widget's version, added to the asset URL in snippets so the long cache never serves an old widget after an upgrade. */
export function altchaWidgetVersion(): string {
  return (widgetVersion ??= (JSON.parse(readFileSync(join(widgetDist(), '..', 'package.json'), 'utf8')) as { version: string }).version);
}

let widgetScript: Buffer | undefined;
/** The package's ES module build, read once on first use. */
export function altchaWidgetScript(): Buffer {
  return (widgetScript ??= readFileSync(join(widgetDist(), 'altcha.js')));
}

/** The widget's script URL and a form's challenge URL on this Formgate. */
export function altchaUrls(baseUrl: string, formId: string): { script: string; challenge: string } {
  return { script: `${baseUrl}${ALTCHA_ASSET_PATH}?v=${altchaWidgetVersion()}`, challenge: `${baseUrl}/v1/challenge/${formId}` };
}

/** The widget's texts in the visitor's language, from Formgate's catalogues (the widget ships English only). */
export function altchaWidgetStrings(language: Language): Record<string, string> {
  const m = messages(language);
  const link = `<a href="https://altcha.org/" target="_blank" rel="noopener" aria-label="${escapeHtml(m['altcha.ariaLinkLabel'])}">ALTCHA</a>`;
  return {
    label: m['altcha.label'],
    verifying: m['altcha.verifying'],
    verified: m['altcha.verified'],
    verificationRequired: m['altcha.verificationRequired'],
    waitAlert: m['altcha.waitAlert'],
    error: m['altcha.error'],
    expired: m['altcha.expired'],
    ariaLinkLabel: m['altcha.ariaLinkLabel'],
    footer: `${escapeHtml(m['altcha.footer'])} ${link}`,
  };
}

/**
 * The `X-Altcha-Config` header of a challenge: the widget applies it as if set on the element. It
 * carries the texts (so the widget speaks the submission's language, which Formgate chose from the
 * same Accept-Language the pages use) and the URL of the next challenge, which names the visit's
 * start. Header values are ASCII here: JSON's \u escapes carry the rest.
 */
export function altchaConfigHeader(language: Language, nextChallengeUrl: string): string {
  // hidelogo: the logo is a focusable link hidden from screen readers; the footer names ALTCHA.
  return JSON.stringify({ challengeurl: nextChallengeUrl, hidelogo: true, strings: altchaWidgetStrings(language) }).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
