#!/usr/bin/env node
// `npm start`, the test suites' global setup and `npm run test:e2e` in a checkout: compile only when a source file is newer
// than the last build (the browser client first, then the server). `npm test` always runs the
// compiler, as the first command CI and a newcomer run.
// tsc's own incremental mode (dist/.tsbuildinfo) would also skip unchanged files, but it still
// loads the compiler and every source file, which takes seconds; comparing times takes
// milliseconds.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildInfo = join(root, 'dist', '.tsbuildinfo');

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

// The browser script the server serves first (client/dist/formgate.min.js).
execFileSync(process.execPath, [join(root, 'scripts', 'build-client-if-stale.mjs')], { stdio: 'inherit', cwd: root });

const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(root, p)).filter(existsSync);
const sourcesChanged = Math.max(...inputs.map(newestMtime));
if (existsSync(buildInfo) && statSync(buildInfo).mtimeMs >= sourcesChanged) process.exit(0);

process.stdout.write('Compiling TypeScript (sources changed since the last build)…\n');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
// tsc leaves its build info alone when nothing needed emitting; mark the build as current anyway.
const now = new Date();
utimesSync(buildInfo, now, now);
