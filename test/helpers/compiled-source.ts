import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const root = fileURLToPath(new URL('../../', import.meta.url));
const sourceDir = join(root, 'src') + '/';
const compiledDir = join(root, 'dist', 'src') + '/';

/** What vitest must load natively: the compiled product (see compiledSource). */
export const compiledProduct = /\/dist\/src\//;

/**
 * Tests import the product's TypeScript (`../../src/…`); this loads its compiled JavaScript from
 * dist/src instead, natively, as `npm start` runs it. Through vite's module runner each test file
 * spent ~2 s importing the app (every module transformed and evaluated anew in each file's
 * process); natively ~0.6 s. The global setup rebuilds dist when a source changed, so a test never
 * runs stale code.
 */
export function compiledSource(): Plugin {
  return {
    name: 'formgate-compiled-source',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.')) return null;
      const target = resolve(dirname(importer), source);
      if (!target.startsWith(sourceDir)) return null;
      return { id: join(compiledDir, relative(sourceDir, target)).replace(/\.ts$/, '.js'), external: true };
    },
  };
}
