/**
 * The one spelling of a request path that routing and every guard see. Percent-encoded letters,
 * digits and `-_~` mean the same as the characters themselves (RFC 3986, 6.2.2.2), and no route
 * has an empty segment, so `/%64ashboard//adm%69n` is `/dashboard/admin`. The dot is left encoded:
 * decoding it could make a `..` segment out of `%2e%2e`. Reserved characters (`%2F`, `%3F`…) stay
 * encoded, and the query string is left as it came.
 */
const UNRESERVED_ESCAPE = /%(3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|2[Dd]|5[Ff]|7[Ee])/g;

export function canonicalRequestUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  // The common case, a path already canonical, costs two scans and no allocation.
  if (!path.includes('%') && !path.includes('//')) return url;
  const canonical = path.replace(UNRESERVED_ESCAPE, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/\/{2,}/g, '/');
  return queryAt === -1 ? canonical : canonical + url.slice(queryAt);
}
