import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './lib/package-root.js';

function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
  if (!pkg.version) throw new Error('package.json of formgate has no version');
  return pkg.version;
}

/** The package version: `formgate --version` and the OpenAPI document's info.version. */
export const VERSION = readPackageVersion();
