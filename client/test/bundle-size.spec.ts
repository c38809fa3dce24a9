import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parse } from 'acorn';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module beside the build script, without declarations.
import { browserBuild } from '../script-options.mjs';

/**
 * The browser script stays at most 5.75 kB minified and gzipped: it loads on every form's page.
 * (5 kB, plus what loading the sealing chunk for sealed forms and its error text take.)
 */
const BUDGET_GZIP_BYTES = 5.75 * 1024;

// Built in memory with the options client/build.mjs writes client/dist/formgate.min.js with, so
// the budget is measured on what the sources build today, with no build beforehand.
// (client/test/client-script.test.ts checks that the server serves that build.)
let script: Buffer;
let sealChunk: Buffer;
beforeAll(async () => {
  const built = (await browserBuild()) as { sealChunk: Buffer; scriptOptions: Parameters<typeof build>[0] };
  sealChunk = built.sealChunk;
  const fresh = await build({ ...built.scriptOptions, write: false, logLevel: 'silent' });
  expect(fresh.outputFiles).toHaveLength(1);
  script = Buffer.from(fresh.outputFiles![0]!.contents);
});

describe('the browser script Formgate serves', () => {
  it(`fits the budget of ${BUDGET_GZIP_BYTES} bytes minified and gzipped`, () => {
    const gzipped = gzipSync(script, { level: 9 }).length;
    expect(gzipped).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it('is one self-contained ES2019 script: parses as an ES2019 classic script, imports nothing', () => {
    const text = script.toString('utf8');
    // A syntax error here names the first construct newer than ES2019 (?., ??, class fields…).
    const program = parse(text, { ecmaVersion: 2019, sourceType: 'script' });
    expect(program.body).toHaveLength(2);
    expect(text).not.toMatch(/\brequire\(|\bimport\(/);
  });

  it('leaves the cipher to the sealing chunk: the script only names the chunk and its integrity', () => {
    const text = script.toString('utf8');
    expect(text).not.toContain('age-encryption.org');
    expect(sealChunk.toString('utf8')).toContain('age-encryption.org/v1');
    const hash = createHash('sha256').update(sealChunk).digest('hex').slice(0, 16);
    expect(text).toContain(`client-seal.${hash}.js`);
    expect(text).toContain(`sha384-${createHash('sha384').update(sealChunk).digest('base64')}`);
  });

  it('the sealing chunk is one ES2020 classic script that imports nothing', () => {
    const text = sealChunk.toString('utf8');
    expect(parse(text, { ecmaVersion: 2020, sourceType: 'script' }).body.length).toBeGreaterThan(0);
    expect(text).not.toMatch(/\brequire\(|\bimport\(/);
  });
});
