import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string (rejection sampling, so no character is more likely than another). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Opaque, URL-safe, unguessable IDs: a type prefix and 16 base62 characters (~95 bits). */
export type IdPrefix = 'acc' | 'key' | 'frm' | 'sub' | 'hook' | 'dlv' | 'ses';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(16)}`;
}
