/**
 * JSON requests to the APIs of the services that keep the data (Google Sheets, Airtable, Notion),
 * at the operator's API bases (config.ts): a deadline, no redirect followed, the answer parsed as
 * JSON when it is JSON. The owner chooses none of these addresses, so the hook rules for
 * owner-chosen targets do not apply.
 */
export interface ApiAnswer {
  /** Null when there was no answer (network error, timeout). */
  status: number | null;
  error: string | null;
  durationMs: number;
  retryAfter?: string | undefined;
  /** The parsed JSON, or the text; undefined without an answer. */
  body: unknown;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
}

export class ApiClient {
  constructor(private readonly timeoutMs: number) {}

  async request(request: ApiRequest): Promise<ApiAnswer> {
    const started = performance.now();
    const headers: Record<string, string> = { 'user-agent': 'Formgate-Integrations/1', accept: 'application/json', ...request.headers };
    let body: string | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    }
    const took = () => Math.round(performance.now() - started);
    try {
      const response = await fetch(request.url, { method: request.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
      const text = await response.text();
      let parsed: unknown = text;
      if ((response.headers.get('content-type') ?? '').includes('json')) {
        try {
          parsed = JSON.parse(text);
        } catch {
          // A broken JSON answer is kept as text: the status still says what happened.
        }
      }
      return { status: response.status, error: null, durationMs: took(), retryAfter: response.headers.get('retry-after') ?? undefined, body: parsed };
    } catch (err) {
      const e = err as { name?: string; cause?: { code?: string }; message?: string };
      const error = e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.message ?? 'request failed').slice(0, 200);
      return { status: null, error, durationMs: took(), body: undefined };
    }
  }
}
