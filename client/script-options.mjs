// esbuild's options for the browser script Formgate serves (one minified ES2019 IIFE, no
// dependencies): client/build.mjs writes it, the bundle-size spec builds it in memory to measure it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const browserScriptOptions = {
  entryPoints: [join(here, 'src', 'browser.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2019',
  minify: true,
  legalComments: 'none',
};
