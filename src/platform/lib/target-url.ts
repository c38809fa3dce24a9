import { ipLiteralOf, isLocalhostName, isPublicAddress } from './addresses.js';

/**
 * Why a hook target is refused, or undefined when it is a public HTTPS URL. WHATWG parsing has
 * already turned `127.1`, `0x7f000001` and `2130706433` into `127.0.0.1`. With allowPrivate the
 * address rules are lifted (local testing), never the https: rule.
 */
export function targetUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'must be an https: URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (raw.length > 2048) return 'must be at most 2048 characters';
  if (allowPrivate) return undefined;
  if (isLocalhostName(url.hostname)) return 'must be a public address, not localhost';
  const literal = ipLiteralOf(url);
  if (literal !== undefined && !isPublicAddress(literal)) return 'must be a public address';
  return undefined;
}
