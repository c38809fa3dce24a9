#!/usr/bin/env node
// Builds the browser client (client/) when a source of it is newer than the script the server
// serves, client/dist/formgate.min.js: run by `npm start` and by the test suite's setup, so
// neither serves a stale script.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const script = join(root, 'client', 'dist', 'formgate.min.js');

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const inputs = ['client/src', 'client/build.mjs', 'client/script-options.mjs', 'client/package.json', 'client/tsconfig.json', 'client/tsconfig.build.json']
  .map((p) => join(root, p))
  .filter(existsSync);
if (existsSync(script) && statSync(script).mtimeMs >= Math.max(...inputs.map(newestMtime))) process.exit(0);
process.stdout.write('Building the browser client (client/ changed since its last build)…\n');
execFileSync(process.execPath, [join(root, 'client', 'build.mjs')], { stdio: 'inherit', cwd: root });
