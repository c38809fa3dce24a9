import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// One call into the CSPRNG per 4 KiB instead of one per ID: the submit path makes an ID per
// request, and the call costs more than the bytes (crypto.randomUUID caches the same way).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniform base62 string (rejection sampling, so no character is more likely than another). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Opaque, URL-safe, unguessable IDs: a type prefix and 16 base62 characters (~95 bits). */
export type IdPrefix = 'acc' | 'key' | 'frm' | 'sub' | 'hook' | 'dlv' | 'ses' | 'rcp' | 'att' | 'eml' | 'int' | 'iat' | 'aud' | 'usr' | 'inv' | 'fil';

const RANDOM_LENGTH = 16;

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(RANDOM_LENGTH)}`;
}

const shapes = new Map<IdPrefix, RegExp>();

/**
 * Whether `value` has the shape of the IDs newId(prefix) makes (every one it has made: the shape
 * is the first release's). Lets a public path answer an ID no row can have without a query.
 */
export function hasIdShape(prefix: IdPrefix, value: string): boolean {
  let shape = shapes.get(prefix);
  if (!shape) {
    shape = new RegExp(`^${prefix}_[0-9A-Za-z]{${RANDOM_LENGTH}}$`);
    shapes.set(prefix, shape);
  }
  return shape.test(value);
}

const TIME_DIGITS = 8; // 62^8 ms reaches the year 8000

/**
 * An ID that sorts by creation time: the type prefix, the millisecond in 8 base62 digits, then
 * 16 random ones. For the rows written most (submissions): a random primary key scatters every
 * insert over the whole index, twice the cost per row on SQLite at a few hundred thousand rows,
 * more as the table grows, while these all land on its last page. It reveals nothing the
 * record's createdAt does not.
 */
export function newTimeOrderedId(prefix: IdPrefix, now = Date.now()): string {
  let time = '';
  for (let rest = now, i = 0; i < TIME_DIGITS; i++, rest = Math.floor(rest / 62)) time = BASE62[rest % 62] + time;
  return `${prefix}_${time}${randomBase62(16)}`;
}
