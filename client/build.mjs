#!/usr/bin/env node
// Builds formgate-client: the browser script Formgate serves (one minified ES2019 IIFE, no
// dependencies) and its sealing chunk, the same code as ES modules, and their type declarations.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { browserBuild, dashboardSealedOptions } from './script-options.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const src = join(here, 'src');
rmSync(dist, { recursive: true, force: true });

const { sealChunk, scriptOptions } = await browserBuild();
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, 'formgate-seal.min.js'), sealChunk);
await build({ ...scriptOptions, outfile: join(dist, 'formgate.min.js'), logLevel: 'warning' });
// Not part of the package's modules: the server's dashboard serves it (/dashboard/assets/sealed.js).
await build({ ...dashboardSealedOptions, outfile: join(dist, 'dashboard-sealed.min.js'), logLevel: 'warning' });

// The modules stay one file per source (no bundling), so `formgate-client/react` shares the
// submit code with the main entry instead of carrying a copy.
await build({
  entryPoints: readdirSync(src).filter((f) => f.endsWith('.ts') && !f.startsWith('browser')).map((f) => join(src, f)),
  outdir: dist,
  define: scriptOptions.define,
  format: 'esm',
  platform: 'browser',
  target: 'es2019',
  logLevel: 'warning',
});

// The typed management-API client: its wrapper as a module, its generated types as they are.
await build({
  entryPoints: [join(src, 'api', 'index.ts')],
  outdir: join(dist, 'api'),
  format: 'esm',
  platform: 'neutral',
  target: 'es2019',
  logLevel: 'warning',
});
copyFileSync(join(src, 'api', 'schema.d.ts'), join(dist, 'api', 'schema.d.ts'));

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
