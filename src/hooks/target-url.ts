import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address may be contacted: only ipaddr.js's `unicast` range (public addresses).
 * Private, loopback, link-local, CGNAT, multicast, reserved, unspecified, unique-local,
 * IPv4-mapped, NAT64, 6to4 and Teredo addresses are all outside it.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'unicast';
}

const isLocalhostName = (host: string) => {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
};

/** The host of a parsed URL as an address when it is an IP literal (brackets removed). */
export function ipLiteralOf(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(host) && (url.hostname.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(host)) ? host : undefined;
}

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
