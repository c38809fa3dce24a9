import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own package.json, read once. It is found by walking up from this file, since the
 * file runs from src/ (tsx, tests) and from dist/src/ (build, installed package).
 */
function readPackageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'formgate' && pkg.version) return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of formgate not found');
    dir = parent;
  }
}

/** The package version: `formgate --version` and the OpenAPI document's info.version. */
export const VERSION = readPackageVersion();
