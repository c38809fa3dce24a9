import type { Form } from '../forms/form.types.js';

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

/**
 * JSON mode when the client asks for JSON (over HTML), or posted JSON to a form with no success
 * URL; otherwise redirect mode (an HTML form post, or any form with a configured success URL).
 */
export function respondsWithJson(accept: string | undefined, contentType: string | undefined, form: Form | undefined): boolean {
  const json = accept ? explicitQuality(accept, 'application/json') : undefined;
  if (json !== undefined && json > 0) {
    const html = explicitQuality(accept!, 'text/html');
    if (html === undefined || json >= html) return true;
  }
  const postedJson = contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
  return postedJson && !form?.successUrl;
}
