import geoip from 'geoip-country';

export const UNKNOWN_COUNTRY = 'XX';

/**
 * Two-letter country of a submission: the trusted proxy header when one is configured, otherwise
 * the offline database shipped in `geoip-country`. Private, loopback and unknown addresses give XX.
 */
export function resolveCountry(ip: string, headerValue: string | undefined, useHeader: boolean): string {
  if (useHeader) {
    const code = headerValue?.trim().toUpperCase();
    return code && /^[A-Z]{2}$/.test(code) ? code : UNKNOWN_COUNTRY;
  }
  const address = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  try {
    return geoip.lookup(address)?.country || UNKNOWN_COUNTRY;
  } catch {
    return UNKNOWN_COUNTRY;
  }
}
