import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import type { SubmissionPosition } from './submission.types.js';

/** The list filters a cursor was made with (docs/api.md, list filters): it pages on with them. */
export interface ListFilters {
  spam?: boolean;
  /** ISO 8601 UTC with milliseconds: createdAt ≥ since. */
  since?: string;
  /** ISO 8601 UTC with milliseconds: createdAt < until. */
  until?: string;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAC_BYTES = 16;

/**
 * Paging cursors are tamper-evident: `<position>.<mac>`, where the position is base64url JSON of
 * the last row's [createdAt, id] (and, when the list was filtered, its filters as a third
 * element: a cursor pages on with the filters it was made with) and the mac an HMAC-SHA256 (cut to 128 bits) of the form ID and
 * the position under a secret every instance on the database shares. A cursor this API did not
 * issue, or issued for another form, is refused however well-formed it looks.
 */
export class SubmissionCursors {
  constructor(private readonly secrets: InstanceSecretService) {}

  async issue(formId: string, position: SubmissionPosition, filters: ListFilters = {}): Promise<string> {
    const f: Record<string, unknown> = {};
    if (filters.spam !== undefined) f.s = filters.spam ? 1 : 0;
    if (filters.since !== undefined) f.f = filters.since;
    if (filters.until !== undefined) f.u = filters.until;
    const value = Object.keys(f).length > 0 ? [position.createdAt, position.id, f] : [position.createdAt, position.id];
    const encoded = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${encoded}.${(await this.mac(formId, encoded)).toString('base64url')}`;
  }

  /** Undefined for anything this API did not hand out for this form. */
  async read(formId: string, cursor: string): Promise<{ position: SubmissionPosition; filters: ListFilters } | undefined> {
    const match = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
    if (!match) return undefined;
    const [, encoded, mac] = match as unknown as [string, string, string];
    // Compared as text: decoding would ignore the unused low bits of the last character.
    const given = Buffer.from(mac);
    const expected = Buffer.from((await this.mac(formId, encoded)).toString('base64url'));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return parsePosition(encoded);
  }

  private async mac(formId: string, encoded: string): Promise<Buffer> {
    const key = await this.secrets.getSecret('cursor-signing');
    return createHmac('sha256', key).update(`${formId}\n${encoded}`).digest().subarray(0, MAC_BYTES);
  }
}

function parseFilters(value: unknown): ListFilters | undefined {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { s, f, u, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return undefined;
  if (s !== undefined && s !== 0 && s !== 1) return undefined;
  if ((f !== undefined && !(typeof f === 'string' && ISO_MS.test(f))) || (u !== undefined && !(typeof u === 'string' && ISO_MS.test(u)))) return undefined;
  return { ...(s === undefined ? {} : { spam: s === 1 }), ...(f === undefined ? {} : { since: f as string }), ...(u === undefined ? {} : { until: u as string }) };
}

function parsePosition(encoded: string): { position: SubmissionPosition; filters: ListFilters } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    const filters = Array.isArray(value) && value.length === 3 ? parseFilters(value[2]) : {};
    if (
      Array.isArray(value) &&
      (value.length === 2 || value.length === 3) &&
      filters !== undefined &&
      typeof value[0] === 'string' &&
      ISO_MS.test(value[0]) &&
      typeof value[1] === 'string' &&
      /^sub_[0-9A-Za-z]{1,64}$/.test(value[1])
    ) {
      return { position: { createdAt: value[0], id: value[1] }, filters };
    }
  } catch {
    // not JSON: fall through
  }
  return undefined;
}
