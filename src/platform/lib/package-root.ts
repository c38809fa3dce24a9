import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of formgate's own package.json, found by walking up from this file, since the code
 * runs from src/ (tsx, tests) and from dist/src/ (build, installed package).
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'formgate') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of formgate not found');
    dir = parent;
  }
}
