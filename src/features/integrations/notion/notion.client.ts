import { APIResponseError, Client, type CreatePageParameters, LogLevel, RequestTimeoutError, UnknownHTTPResponseError } from '@notionhq/client';
import type { ApiAnswer } from '../api-client.js';

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
 * Notion's SDK at the operator's base, version pinned: the database's first data source and its
 * properties (cached for 10 minutes per database and token), and page creation. Its answers and
 * errors become the shared answer shape, so Notion is judged by the same rules as the other
 * services (service-answer.ts).
 */
export class NotionClient {
  private readonly schemas = new Map<string, { schema: NotionSchema; until: number }>();
  private readonly sdk: Client;

  constructor(baseUrl: string, timeoutMs: number) {
    this.sdk = new Client({
      baseUrl,
      notionVersion: NOTION_VERSION,
      // The outbox owns retries: its backoff, its Retry-After handling and its log of attempts.
      retry: false,
      timeoutMs,
      // The SDK's own timer only stops waiting for the headers; this deadline also ends the request and its body.
      fetch: (url, init) => fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) }),
      // Every failure is kept in the message log; the SDK would also print each one.
      logLevel: LogLevel.ERROR,
    });
  }

  /** The schema, or the answer that refused it. */
  async schema(token: string, database: string): Promise<{ schema: NotionSchema } | { answer: ApiAnswer; reason?: string }> {
    const key = `${database}\n${token}`;
    const cached = this.schemas.get(key);
    if (cached && cached.until > Date.now()) return { schema: cached.schema };
    const db = await call(() => this.sdk.databases.retrieve({ database_id: database, auth: token }));
    if (!('body' in db)) return { answer: db.answer };
    const sources = (db.body as { data_sources?: Array<{ id?: unknown }> }).data_sources;
    const dataSourceId = Array.isArray(sources) && typeof sources[0]?.id === 'string' ? sources[0].id : undefined;
    if (!dataSourceId) return { answer: db.answer, reason: 'the database has no data source' };
    const source = await call(() => this.sdk.dataSources.retrieve({ data_source_id: dataSourceId, auth: token }));
    if (!('body' in source)) return { answer: source.answer };
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

  async createPage(token: string, page: Record<string, unknown>): Promise<ApiAnswer> {
    return (await call(() => this.sdk.pages.create({ ...(page as CreatePageParameters), auth: token }))).answer;
  }
}

/** One SDK call as the shared answer shape; the SDK returns the body only for a 2xx, which Notion answers as 200. */
async function call(request: () => Promise<unknown>): Promise<{ answer: ApiAnswer; body: unknown } | { answer: ApiAnswer }> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const body = await request();
    return { answer: { status: 200, error: null, durationMs: took(), body }, body };
  } catch (err) {
    return { answer: answerOfError(err, took()) };
  }
}

/** A failed call: Notion's answer (its code and message), or why there was none. */
export function answerOfError(err: unknown, durationMs: number): ApiAnswer {
  if (APIResponseError.isAPIResponseError(err)) {
    return { status: err.status, error: null, durationMs, retryAfter: retryAfterOf(err.headers), body: { code: err.code, message: err.message } };
  }
  if (UnknownHTTPResponseError.isUnknownHTTPResponseError(err)) {
    // Not Notion's error shape (a proxy's page, a code the SDK does not know): its text, or its JSON, says what happened.
    return { status: err.status, error: null, durationMs, retryAfter: retryAfterOf(err.headers), body: jsonOrText(err.body) };
  }
  const e = err as { name?: string; cause?: { code?: unknown }; message?: string };
  if (RequestTimeoutError.isRequestTimeoutError(err) || e.name === 'TimeoutError') return { status: null, error: 'timeout', durationMs, body: undefined };
  const error = typeof e.cause?.code === 'string' ? e.cause.code : (e.message ?? 'request failed');
  return { status: null, error: error.slice(0, 200), durationMs, body: undefined };
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const retryAfterOf = (headers: unknown) => (headers instanceof Headers ? (headers.get('retry-after') ?? undefined) : undefined);
