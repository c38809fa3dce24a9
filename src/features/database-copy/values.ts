import type { Dialect } from '../../platform/db/database.js';

const INTEGER_TYPES = /^(integer|int|int2|int4|int8|smallint|bigint)$/;
const REAL_TYPES = /^(real|double precision|double|float|numeric|decimal)$/;

/**
 * A value read from one database in the form the other stores it in the column of type
 * `targetType`. Formgate's columns are text, integers and reals on both, which the drivers
 * already agree on; what is converted is what one driver answers differently: PostgreSQL's
 * int8 and numeric come back as strings, booleans and JSON as JavaScript values, timestamps as
 * Dates, while SQLite has none of those.
 */
export function toTargetValue(value: unknown, targetType: string, targetDialect: Dialect): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return value;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'boolean') return targetDialect === 'sqlite' || INTEGER_TYPES.test(targetType) ? (value ? 1 : 0) : value;
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'number' && targetType === 'boolean') return value !== 0;
  if (typeof value === 'string' && targetDialect === 'sqlite') {
    if (INTEGER_TYPES.test(targetType) && /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
    if (REAL_TYPES.test(targetType) && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  }
  return value;
}
