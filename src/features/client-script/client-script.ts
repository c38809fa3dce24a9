import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../platform/lib/package-root.js';

/**
 * Where the formgate-client workspace's build (part of `npm run build`) writes the browser
 * script. The root package.json's `files` packs it with the server.
 */
export const CLIENT_SCRIPT_FILE = join('client', 'dist', 'formgate.min.js');
/** The sealing chunk the script loads for sealed forms only, built beside it. */
export const SEAL_CHUNK_FILE = join('client', 'dist', 'formgate-seal.min.js');

/** The sealing chunk as served: the script names it by this path and integrity. */
export interface SealChunk {
  body: Buffer;
  hash: string;
  /** `/v1/client-seal.<hash>.js`: the only URL it has, so a page's script always gets its own build. */
  versionedPath: string;
  integrity: string;
}

export interface ClientScript {
  body: Buffer;
  /** First 16 hex digits of the SHA-256 of the body: a new build gets a new immutable URL. */
  hash: string;
  /** `/v1/client.<hash>.js` */
  versionedPath: string;
  /** Subresource Integrity value for a script tag: `sha384-<base64>`. */
  integrity: string;
  /** Absent only where a test stands in a script of its own. */
  seal: SealChunk | undefined;
}

/** Read once at start: the script changes only with a new build, i.e. a restart. */
export function loadClientScript(file = join(packageRoot(), CLIENT_SCRIPT_FILE), sealFile = join(packageRoot(), SEAL_CHUNK_FILE)): ClientScript {
  return clientScriptOf(readBuilt(file), readBuilt(sealFile));
}

function readBuilt(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`The browser client script ${file} is missing; build it with: npm run build`, { cause: err });
  }
}

/** The script as served: its bytes, their hash and Subresource Integrity value; the same for the chunk. */
export function clientScriptOf(body: Buffer, sealBody?: Buffer): ClientScript {
  const { hash, integrity } = fingerprint(body);
  const seal = sealBody ? fingerprint(sealBody) : undefined;
  return {
    body,
    hash,
    versionedPath: `/v1/client.${hash}.js`,
    integrity,
    seal: seal && sealBody ? { body: sealBody, ...seal, versionedPath: `/v1/client-seal.${seal.hash}.js` } : undefined,
  };
}

/** The build computes the chunk's name and integrity the same way (client/script-options.mjs). */
function fingerprint(body: Buffer): { hash: string; integrity: string } {
  return {
    hash: createHash('sha256').update(body).digest('hex').slice(0, 16),
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  };
}
