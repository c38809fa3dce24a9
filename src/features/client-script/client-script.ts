import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../platform/lib/package-root.js';

/**
 * Where the formgate-client workspace's build (part of `npm run build`) writes the browser
 * script. The root package.json's `files` packs it with the server.
 */
export const CLIENT_SCRIPT_FILE = join('client', 'dist', 'formgate.min.js');

export interface ClientScript {
  body: Buffer;
  /** First 16 hex digits of the SHA-256 of the body: a new build gets a new immutable URL. */
  hash: string;
  /** `/v1/client.<hash>.js` */
  versionedPath: string;
  /** Subresource Integrity value for a script tag: `sha384-<base64>`. */
  integrity: string;
}

/** Read once at start: the script changes only with a new build, i.e. a restart. */
export function loadClientScript(file = join(packageRoot(), CLIENT_SCRIPT_FILE)): ClientScript {
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (err) {
    throw new Error(`The browser client script ${file} is missing; build it with: npm run build`, { cause: err });
  }
  return clientScriptOf(body);
}

/** The script as served: its bytes, their hash and Subresource Integrity value. */
export function clientScriptOf(body: Buffer): ClientScript {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return {
    body,
    hash,
    versionedPath: `/v1/client.${hash}.js`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  };
}
