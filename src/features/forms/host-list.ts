/**
 * One reading of a host list (allowed origins, allowed redirect hosts) for every front end:
 * entries are separated by commas or line breaks, never by spaces, so "exa mple.com" stays one
 * entry and is refused instead of silently becoming two hosts. A pasted URL
 * (https://shop.example.com/page) counts as its host.
 */
export function splitHostList(text: string): string[] {
  return text
    .split(/[,\r\n]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** The host of a pasted http(s) URL, lower-case with a non-default port; anything else unchanged. */
export function hostOfEntry(value: unknown): unknown {
  if (typeof value !== 'string' || !value.includes('://')) return value;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : value;
  } catch {
    return value;
  }
}
