import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { bearer, json, StandInServer, type StandInRequest } from './service-stand-in.js';

export const NOTION_VERSION = '2025-09-03';

interface Page {
  properties: Record<string, unknown>;
  children: Array<Record<string, unknown>>;
}

const isRichText = (v: unknown) => Array.isArray(v) && v.every((t) => typeof (t as { text?: { content?: unknown } }).text?.content === 'string' && (t as { text: { content: string } }).text.content.length <= 2000);

/** Whether a property value has the shape Notion requires for the property's type. */
function fits(type: string, value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== type) return false;
  const v = value[type];
  switch (type) {
    case 'title':
    case 'rich_text':
      return isRichText(v);
    case 'email':
    case 'phone_number':
    case 'url':
      return v === null || typeof v === 'string';
    case 'number':
      return v === null || typeof v === 'number';
    case 'checkbox':
      return typeof v === 'boolean';
    case 'select':
      return v === null || (typeof (v as { name?: unknown }).name === 'string' && !(v as { name: string }).name.includes(','));
    case 'multi_select':
      return Array.isArray(v) && v.every((o) => typeof (o as { name?: unknown }).name === 'string');
    case 'date':
      return typeof (v as { start?: unknown }).start === 'string' && !Number.isNaN(Date.parse((v as { start: string }).start));
    default:
      return false;
  }
}

/**
 * Notion's API (version 2025-09-03) on loopback: databases with one data source each, its
 * schema, and page creation, checking what Notion checks: the bearer token, the Notion-Version
 * header, the database shared with the integration, the parent data source, and each property
 * value against its type.
 */
export class NotionStandIn {
  readonly server = new StandInServer((req, res) => this.handle(req, res));
  private readonly databases = new Map<string, { token: string; dataSourceId: string; properties: Record<string, string>; pages: Page[] }>();
  schemaReads = 0;

  async start(): Promise<void> {
    await this.server.start();
  }

  /** A database shared with the integration of `token`; `properties` maps a name to its type. */
  createDatabase(token: string, properties: Record<string, string>): string {
    const id = randomUUID();
    this.databases.set(id, { token, dataSourceId: randomUUID(), properties, pages: [] });
    return id;
  }

  pages(database: string): Page[] {
    return this.databases.get(database)?.pages ?? [];
  }

  private handle(req: StandInRequest, res: ServerResponse): void {
    const error = (status: number, code: string, message: string) => json(res, status, { object: 'error', status, code, message });
    if (!bearer(req)) return error(401, 'unauthorized', 'API token is invalid.');
    if (req.headers['notion-version'] !== NOTION_VERSION) return error(400, 'missing_version', `Notion-Version header must be ${NOTION_VERSION} here.`);
    const shared = (db: { token: string } | undefined) => db !== undefined && db.token === bearer(req);
    let m = /^\/v1\/databases\/([^/]+)$/.exec(req.path);
    if (m && req.method === 'GET') {
      const db = this.databases.get(m[1]!);
      if (!shared(db)) return error(404, 'object_not_found', `Could not find database with ID: ${m[1]}. Make sure the relevant pages and databases are shared with your integration.`);
      return json(res, 200, { object: 'database', id: m[1], data_sources: [{ id: db!.dataSourceId, name: 'Leads' }] });
    }
    m = /^\/v1\/data_sources\/([^/]+)$/.exec(req.path);
    if (m && req.method === 'GET') {
      const db = [...this.databases.values()].find((d) => d.dataSourceId === m![1]);
      if (!shared(db)) return error(404, 'object_not_found', 'Could not find data source.');
      this.schemaReads++;
      const properties = Object.fromEntries(Object.entries(db!.properties).map(([name, type], i) => [name, { id: `p${i}`, name, type, [type]: {} }]));
      return json(res, 200, { object: 'data_source', id: db!.dataSourceId, properties });
    }
    if (req.path === '/v1/pages' && req.method === 'POST') {
      const body = JSON.parse(req.body) as { parent?: { type?: string; data_source_id?: string }; properties?: Record<string, Record<string, unknown>>; children?: Array<Record<string, unknown>> };
      if (body.parent?.type !== 'data_source_id') return error(400, 'validation_error', 'body.parent.data_source_id should be defined.');
      const db = [...this.databases.values()].find((d) => d.dataSourceId === body.parent!.data_source_id);
      if (!shared(db)) return error(404, 'object_not_found', 'Could not find data source.');
      for (const [name, value] of Object.entries(body.properties ?? {})) {
        const type = db!.properties[name];
        if (type === undefined) return error(400, 'validation_error', `${name} is not a property that exists.`);
        if (!fits(type, value)) return error(400, 'validation_error', `${name} is expected to be ${type}.`);
      }
      const children = body.children ?? [];
      if (children.length > 100 || !children.every((c) => c.type === 'bulleted_list_item' && isRichText((c.bulleted_list_item as { rich_text?: unknown }).rich_text))) {
        return error(400, 'validation_error', 'body.children is invalid.');
      }
      db!.pages.push({ properties: body.properties ?? {}, children });
      return json(res, 200, { object: 'page', id: randomUUID() });
    }
    return error(400, 'invalid_request_url', 'Invalid request URL.');
  }
}
