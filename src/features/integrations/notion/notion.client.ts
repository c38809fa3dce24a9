import type { ApiAnswer, ApiClient } from '../api-client.js';

/** The API version Formgate speaks: databases hold data sources, which hold the schema and parent the pages. */
export const NOTION_VERSION = '2025-09-03';
/** How long a data source's schema is reused before it is read again. */
export const SCHEMA_TTL_MS = 10 * 60_000;

/** A property of the data source: its name and type (title, rich_text, email, number…). */
export interface NotionProperty {
  name: string;
  type: string;
}

export interface NotionSchema {
  dataSourceId: string;
  properties: NotionProperty[];
}

/**
 * Notion's API at the operator's base, version pinned: the database's first data source and its
 * properties (cached for 10 minutes per database and token), and page creation. Plain requests:
 * they share the other services' deadline and answer handling.
 */
export class NotionClient {
  private readonly schemas = new Map<string, { schema: NotionSchema; until: number }>();

  constructor(
    private readonly http: ApiClient,
    private readonly baseUrl: string,
  ) {}

  private headers(token: string) {
    return { authorization: `Bearer ${token}`, 'notion-version': NOTION_VERSION };
  }

  /** The schema, or the answer that refused it. */
  async schema(token: string, database: string): Promise<{ schema: NotionSchema } | { answer: ApiAnswer; reason?: string }> {
    const key = `${database}\n${token}`;
    const cached = this.schemas.get(key);
    if (cached && cached.until > Date.now()) return { schema: cached.schema };
    const db = await this.http.request({ method: 'GET', url: `${this.baseUrl}/v1/databases/${encodeURIComponent(database)}`, headers: this.headers(token) });
    if (db.status !== 200) return { answer: db };
    const sources = (db.body as { data_sources?: Array<{ id?: unknown }> }).data_sources;
    const dataSourceId = Array.isArray(sources) && typeof sources[0]?.id === 'string' ? sources[0].id : undefined;
    if (!dataSourceId) return { answer: db, reason: 'the database has no data source' };
    const source = await this.http.request({ method: 'GET', url: `${this.baseUrl}/v1/data_sources/${encodeURIComponent(dataSourceId)}`, headers: this.headers(token) });
    if (source.status !== 200) return { answer: source };
    const props = (source.body as { properties?: Record<string, { name?: unknown; type?: unknown }> }).properties ?? {};
    const properties = Object.entries(props).map(([name, p]) => ({ name: typeof p.name === 'string' ? p.name : name, type: String(p.type) }));
    const schema = { dataSourceId, properties };
    this.schemas.set(key, { schema, until: Date.now() + SCHEMA_TTL_MS });
    return { schema };
  }

  /** A schema that no longer fits (a property renamed): read it again next time. */
  forget(token: string, database: string): void {
    this.schemas.delete(`${database}\n${token}`);
  }

  createPage(token: string, page: unknown): Promise<ApiAnswer> {
    return this.http.request({ method: 'POST', url: `${this.baseUrl}/v1/pages`, headers: this.headers(token), json: page });
  }
}
