import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets the dashboard is held to: WCAG 2.1 A and AA, and axe's best practices. */
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

/** A page's address as its template: IDs and tokens in the path become `:id` / `:token`. */
export function pageTemplate(url: string): string {
  const { pathname } = new URL(url);
  return pathname
    .split('/')
    .map((segment) => (/^[a-z]{2,5}_[A-Za-z0-9]+$/.test(segment) ? ':id' : segment.length >= 20 && /^[A-Za-z0-9_-]+$/.test(segment) ? ':token' : segment))
    .join('/');
}

/**
 * The accessibility audit of a browser journey: `watch` each tab, `check` it on every page worth
 * auditing (it asserts no serious or critical violation there and then), and at the end
 * `unchecked()` names every page of `baseUrl` the journey loaded but never audited.
 */
export function accessibilityAudit(baseUrl: string) {
  const visited = new Set<string>();
  const checked = new Set<string>();
  return {
    watch(page: Page): Page {
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame() && frame.url().startsWith(baseUrl)) visited.add(pageTemplate(frame.url()));
      });
      return page;
    },
    async check(page: Page): Promise<void> {
      const template = pageTemplate(page.url());
      checked.add(template);
      expect(await seriousViolations(page), template).toEqual([]);
    },
    unchecked: () => [...visited].filter((template) => !checked.has(template)).sort(),
    checked: () => [...checked].sort(),
  };
}
