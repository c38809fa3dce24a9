import type { ServerResponse } from 'node:http';
import { bearer, json, StandInServer, type StandInRequest } from './service-stand-in.js';

/**
 * Airtable's create-records endpoint on loopback, checking what Airtable checks: the bearer
 * token, the base and table, each field's column (422 UNKNOWN_FIELD_NAME), and its limit of 5
 * requests a second per base: beyond it every request to the base answers 429 for `penaltyMs`
 * (Airtable: 30 seconds), with no Retry-After, as Airtable sends none.
 */
export class AirtableStandIn {
  readonly server = new StandInServer((req, res) => this.handle(req, res));
  readonly bases = new Map<string, { token: string; tables: Map<string, { columns: string[]; records: Array<Record<string, unknown>> }> }>();
  private readonly recent = new Map<string, number[]>();
  private readonly penaltyUntil = new Map<string, number>();
  tooManyRequests = 0;

  constructor(private readonly penaltyMs: number) {}

  async start(): Promise<void> {
    await this.server.start();
  }

  createTable(base: string, token: string, table: string, columns: string[]): void {
    const entry = this.bases.get(base) ?? { token, tables: new Map() };
    entry.tables.set(table, { columns, records: [] });
    this.bases.set(base, entry);
  }

  records(base: string, table: string): Array<Record<string, unknown>> {
    return this.bases.get(base)?.tables.get(table)?.records ?? [];
  }

  /** Counts a request against the base's limit, as any client's would. */
  hit(base: string): boolean {
    const now = Date.now();
    if ((this.penaltyUntil.get(base) ?? 0) > now) return false;
    const times = (this.recent.get(base) ?? []).filter((at) => at > now - 1000);
    times.push(now);
    this.recent.set(base, times);
    if (times.length > 5) {
      this.penaltyUntil.set(base, now + this.penaltyMs);
      return false;
    }
    return true;
  }

  private handle(req: StandInRequest, res: ServerResponse): void {
    const m = /^\/v0\/([^/]+)\/([^/]+)$/.exec(req.path);
    if (!m || req.method !== 'POST') return json(res, 404, { error: 'NOT_FOUND' });
    const base = this.bases.get(decodeURIComponent(m[1]!));
    if (!bearer(req)) return json(res, 401, { error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' } });
    if (!base || base.token !== bearer(req)) return json(res, 403, { error: { type: 'INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND', message: 'Invalid permissions, or the requested model was not found.' } });
    if (!this.hit(decodeURIComponent(m[1]!))) {
      this.tooManyRequests++;
      return json(res, 429, { errors: [{ error: 'RATE_LIMIT_REACHED', message: 'Rate limit exceeded. Please try again later' }] });
    }
    const table = base.tables.get(decodeURIComponent(m[2]!));
    if (!table) return json(res, 404, { error: { type: 'TABLE_NOT_FOUND', message: 'Could not find table in application' } });
    const body = JSON.parse(req.body) as { records?: Array<{ fields?: Record<string, unknown> }>; typecast?: boolean };
    if (body.typecast !== true || !Array.isArray(body.records) || body.records.length !== 1) return json(res, 422, { error: { type: 'INVALID_REQUEST_UNKNOWN', message: 'Invalid request' } });
    const fields = body.records[0]!.fields ?? {};
    const unknown = Object.keys(fields).find((name) => !table.columns.includes(name));
    if (unknown !== undefined) return json(res, 422, { error: { type: 'UNKNOWN_FIELD_NAME', message: `Unknown field name: "${unknown}"` } });
    const record = { id: `rec${String(table.records.length).padStart(14, '0')}`, createdTime: new Date().toISOString(), fields };
    table.records.push(fields);
    json(res, 200, { records: [record] });
  }
}
