import type { Form } from '../forms/form.types.js';
import { BoundedMemo } from '../../platform/lib/bounded-memo.js';

/** The q-value a media type gets from an Accept header when it is named explicitly (not via wildcards). */
function explicitQuality(accept: string, type: string): number | undefined {
  for (const range of accept.toLowerCase().split(',')) {
    const [media, ...params] = range.split(';').map((p) => p.trim());
    if (media !== type) continue;
    const q = params.find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    return Number.isFinite(value) ? value : 0;
  }
  return undefined;
}

/** Whether an Accept header names JSON, and ranks it no lower than HTML. */
function asksForJson(accept: string): boolean {
  const json = explicitQuality(accept, 'application/json');
  const html = json !== undefined && json > 0 ? explicitQuality(accept, 'text/html') : undefined;
  return json !== undefined && json > 0 && (html === undefined || json >= html);
}

// Clients send a handful of distinct Accept headers: each is read once (split, trim, q-values).
// Bounded in count and length, so odd headers cannot grow it.
const askedForJson = new BoundedMemo<string, boolean>(64);
const ACCEPT_REMEMBERED_LENGTH = 512;

/**
 * JSON mode when the client asks for JSON (over HTML), or posted JSON to a form with no success
 * URL; otherwise redirect mode (an HTML form post, or any form with a configured success URL).
 */
export function respondsWithJson(accept: string | undefined, contentType: string | undefined, form: Form | undefined): boolean {
  if (accept && (accept.length > ACCEPT_REMEMBERED_LENGTH ? asksForJson(accept) : askedForJson.get(accept, asksForJson))) return true;
  const postedJson = contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
  return postedJson && !form?.successUrl;
}
