import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../platform/lib/package-root.js';

/**
 * The dashboard's sealed-form tools (making an identity, opening sealed submissions in the
 * browser), built by the formgate-client workspace with the age library (client/src/dashboard/).
 */
export const SEALED_SCRIPT_FILE = join('client', 'dist', 'dashboard-sealed.min.js');

let cached: Buffer | undefined;

/** Read on first use: only pages of sealed forms load it. */
export function sealedScript(): Buffer {
  if (!cached) {
    const file = join(packageRoot(), SEALED_SCRIPT_FILE);
    try {
      cached = readFileSync(file);
    } catch (err) {
      throw new Error(`The dashboard's sealed-form script ${file} is missing; build it with: npm run build`, { cause: err });
    }
  }
  return cached;
}
