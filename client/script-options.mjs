// esbuild's options for the browser script Formgate serves (one minified ES2019 IIFE, no
// dependencies) and for its sealing chunk (loaded by the script only for sealed forms):
// client/build.mjs writes both, the bundle-size spec builds them in memory to measure them.
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

/** The sealing chunk: age's cipher code needs BigInt literals, so ES2020 (browsers from 2020). */
export const sealChunkOptions = {
  entryPoints: [join(here, 'src', 'browser-seal.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
};

/** The dashboard's sealed-form tools, a static script its pages load (CSP: scripts from 'self'). */
export const dashboardSealedOptions = { ...sealChunkOptions, entryPoints: [join(here, 'src', 'dashboard', 'sealed.ts')] };

export const browserScriptOptions = {
  entryPoints: [join(here, 'src', 'browser.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2019',
  minify: true,
  legalComments: 'none',
};

/**
 * Builds the sealing chunk in memory, then returns it with the browser script's options: the
 * script names the chunk by a hash of its bytes (the URL the server serves it at, immutable) and
 * loads it with that Subresource Integrity value, so it runs only the chunk it was built with.
 */
export async function browserBuild() {
  const chunk = await build({ ...sealChunkOptions, write: false, logLevel: 'warning' });
  const sealChunk = Buffer.from(chunk.outputFiles[0].contents);
  const chunkRef = {
    file: `client-seal.${createHash('sha256').update(sealChunk).digest('hex').slice(0, 16)}.js`,
    integrity: `sha384-${createHash('sha384').update(sealChunk).digest('base64')}`,
  };
  return {
    sealChunk,
    scriptOptions: { ...browserScriptOptions, define: { __FORMGATE_SEAL_CHUNK__: JSON.stringify(chunkRef) } },
  };
}
