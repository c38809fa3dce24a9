import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets of issue 28: WCAG 2.1 A and AA, and axe's best practices. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/**
 * Serious and critical axe-core violations of the page as it is now, one line each
 * (`rule: selector`). axe is evaluated through the DevTools protocol, so the dashboard's CSP
 * (no inline script) does not have to be loosened for it.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async (tags) => {
    const run = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }> } }).axe.run;
    const result = await run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  }, TAGS);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.targets.map((target) => `${v.id}: ${target}`));
}
