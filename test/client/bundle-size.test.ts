import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';

/** Issue 27: the browser script stays at most 5 kB minified and gzipped. */
const BUDGET_GZIP_BYTES = 5 * 1024;

const script = readFileSync(new URL('../../client/dist/formgate.min.js', import.meta.url));

describe('the browser script Formgate serves', () => {
  it(`fits the budget of ${BUDGET_GZIP_BYTES} bytes minified and gzipped`, () => {
    const gzipped = gzipSync(script, { level: 9 }).length;
    expect(gzipped).toBeGreaterThan(0);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it('is one self-contained ES2019 script: parses as an ES2019 classic script, imports nothing', () => {
    const text = script.toString('utf8');
    // A syntax error here names the first construct newer than ES2019 (?., ??, class fields…).
    const program = parse(text, { ecmaVersion: 2019, sourceType: 'script' });
    expect(program.body).toHaveLength(2);
    expect(text).not.toMatch(/\brequire\(|\bimport\(/);
  });
});
