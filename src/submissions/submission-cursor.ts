import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import type { SubmissionPosition } from './submission.types.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAC_BYTES = 16;

/**
 * Paging cursors are tamper-evident: `<position>.<mac>`, where the position is base64url JSON of
 * the last row's [createdAt, id] and the mac an HMAC-SHA256 (cut to 128 bits) of the form ID and
 * the position under a secret every instance on the database shares. A cursor this API did not
 * issue, or issued for another form, is refused however well-formed it looks.
 */
export class SubmissionCursors {
  constructor(private readonly secrets: InstanceSecretService) {}

  async issue(formId: string, position: SubmissionPosition): Promise<string> {
    const encoded = Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
    return `${encoded}.${(await this.mac(formId, encoded)).toString('base64url')}`;
  }

  /** Undefined for anything this API did not hand out for this form. */
  async read(formId: string, cursor: string): Promise<SubmissionPosition | undefined> {
    const match = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
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

function parsePosition(encoded: string): SubmissionPosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      ISO_MS.test(value[0]) &&
      typeof value[1] === 'string' &&
      /^sub_[0-9A-Za-z]{1,64}$/.test(value[1])
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // not JSON: fall through
  }
  return undefined;
}
