import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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
