import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parse } from 'acorn';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module beside the build script, without declarations.
import { browserScriptOptions } from '../script-options.mjs';

/** The browser script stays at most 5 kB minified and gzipped: it loads on every form's page. */
const BUDGET_GZIP_BYTES = 5 * 1024;

const script = readFileSync(new URL('../dist/formgate.min.js', import.meta.url));

describe('the browser script Formgate serves', () => {
  it(`fits the budget of ${BUDGET_GZIP_BYTES} bytes minified and gzipped`, () => {
    const gzipped = gzipSync(script, { level: 9 }).length;
    expect(gzipped).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it('is what the sources build today (the budget is measured on the script Formgate serves)', async () => {
    // A stale or truncated dist would pass the budget.
    const fresh = await build({ ...browserScriptOptions, write: false, logLevel: 'silent' });
    expect(fresh.outputFiles).toHaveLength(1);
    expect(Buffer.from(fresh.outputFiles![0]!.contents).equals(script)).toBe(true);
  });

  it('is one self-contained ES2019 script: parses as an ES2019 classic script, imports nothing', () => {
    const text = script.toString('utf8');
    // A syntax error here names the first construct newer than ES2019 (?., ??, class fields…).
    const program = parse(text, { ecmaVersion: 2019, sourceType: 'script' });
    expect(program.body).toHaveLength(2);
    expect(text).not.toMatch(/\brequire\(|\bimport\(/);
  });
});
