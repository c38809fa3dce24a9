import { createRequire } from 'node:module';
import type geoipModule from 'geoip-country';
import { isPublicAddress } from '../../platform/lib/addresses.js';
import { BoundedMemo } from '../../platform/lib/bounded-memo.js';
import { UNKNOWN_COUNTRY } from '../../platform/lib/text.js';

type GeoIp = typeof geoipModule;
let geoip: GeoIp | undefined;

/**
 * The offline table (~20 MB in memory) is loaded by the first public address that needs it, not at
 * start: behind Cloudflare (COUNTRY_HEADER) or on a private network it is never needed at all.
 */
function geoipTable(): GeoIp {
  return (geoip ??= createRequire(import.meta.url)('geoip-country') as GeoIp);
}

/**
 * Two-letter country of a submission: the trusted proxy header when one is configured, otherwise
 * the offline database shipped in `geoip-country`. Private, loopback and unknown addresses give XX.
 */
export function resolveCountry(ip: string, headerValue: string | undefined, useHeader: boolean): string {
  if (useHeader) {
    const code = headerValue?.trim().toUpperCase();
    return code && /^[A-Z]{2}$/.test(code) ? code : UNKNOWN_COUNTRY;
  }
  return recent.get(ip, lookUpCountry);
}

/** Addresses submit again and again (a visitor's retries, a proxy in front): parsed once. */
const recent = new BoundedMemo<string, string>(10_000);

function lookUpCountry(ip: string): string {
  const address = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  if (!isPublicAddress(address)) return UNKNOWN_COUNTRY;
  try {
    return geoipTable().lookup(address)?.country || UNKNOWN_COUNTRY;
  } catch {
    return UNKNOWN_COUNTRY;
  }
}
