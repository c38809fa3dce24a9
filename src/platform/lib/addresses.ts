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

/** `localhost` and its subdomains, which resolve to loopback whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The host of a parsed URL as an address when it is an IP literal (brackets removed). */
export function ipLiteralOf(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(host) && (url.hostname.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(host)) ? host : undefined;
}
