import { createRequire } from 'node:module';

let undici: typeof import('undici') | undefined;

/**
 * undici is loaded on first use (a hook delivery, a Turnstile check): it is ~10 MB of resident
 * memory that a server whose forms have no hooks and no bot check never needs.
 */
export function loadUndici(): typeof import('undici') {
  return (undici ??= createRequire(import.meta.url)('undici') as typeof import('undici'));
}
