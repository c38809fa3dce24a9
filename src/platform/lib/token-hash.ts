import { createHash } from 'node:crypto';

/**
 * The stored form of a random bearer token (session, API key, verification or reset link).
 * Tokens carry enough randomness that a fast hash suffices (no password stretching), and only
 * the hash is stored, so a leaked table gives no usable token.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
