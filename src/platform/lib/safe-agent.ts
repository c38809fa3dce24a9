import type { Agent } from 'undici';
import { ipLiteralOf, isPublicAddress } from './addresses.js';
import { loadUndici } from './undici.js';
import { createSafeLookup, systemResolver, type Resolver } from './safe-lookup.js';

/** At most this much of a target's answer is read; the status is what counts. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Test seams: trust a local CA, resolve names through a fake DNS. Production passes nothing. */
export interface SafeTransportOptions {
  ca?: string;
  resolve?: Resolver;
}

/**
 * The undici dispatcher of every outbound call to an owner-chosen target (hook deliveries,
 * integrations): it connects only to addresses that pass the SSRF rules, checked at connect
 * time, within a deadline.
 */
export function createSafeAgent(timeoutMs: number, allowPrivate: boolean, transport: SafeTransportOptions = {}): Agent {
  return new (loadUndici().Agent)({
    connect: {
      lookup: createSafeLookup(transport.resolve ?? systemResolver, allowPrivate),
      ...(transport.ca ? { ca: transport.ca } : {}),
      timeout: timeoutMs,
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

/** Reads at most MAX_RESPONSE_BYTES of a response, then drops the connection. */
export async function discardBody(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read >= MAX_RESPONSE_BYTES) {
        body.destroy();
        return;
      }
    }
  } catch {
    // The status is what counts; a body that breaks off is no failure of the send.
  }
}

/** A send's error in a few words: `timeout`, `refused: …` (SSRF rules), or the system's code. */
export function describeSendError(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  const cause = e.cause ?? e;
  if (cause.code === 'FORMGATE_REFUSED_ADDRESS' || e.code === 'FORMGATE_REFUSED_ADDRESS') {
    return `refused: ${cause.message ?? e.message}`;
  }
  return (cause.code ?? e.code ?? cause.message ?? e.message ?? 'delivery failed').slice(0, 200);
}

/** What a target answered to one POST: its status, or why there was none. */
export interface PostAnswer {
  status: number | null;
  /** A network error, a timeout or a refusal by the SSRF rules, when there was no answer. */
  error: string | null;
  durationMs: number;
  /** The answer's Retry-After, if it had one. */
  retryAfter?: string | undefined;
}

/** A request to an owner-chosen API (a self-hosted mailing list), whose answer is read. */
export interface SafeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** An answer with its body: at most MAX_RESPONSE_BYTES of it, and its content type. */
export interface ReadAnswer extends PostAnswer {
  body?: string;
  contentType?: string;
}

/** Reads at most MAX_RESPONSE_BYTES of a response as text; a longer answer is cut there. */
async function readBody(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    read += chunk.length;
    if (read >= MAX_RESPONSE_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
}

/**
 * One request to an owner-chosen target (a hook delivery, an integration's message): no retries,
 * no redirects followed, a deadline, at most MAX_RESPONSE_BYTES of the answer read, and only
 * addresses that pass the SSRF rules (an IP literal here, a name's addresses at connect time).
 */
export class SafePoster {
  /** Created with the first request: undici is loaded only then. */
  private agentInstance: Agent | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
    private readonly transport: SafeTransportOptions = {},
  ) {}

  private get agent(): Agent {
    this.agentInstance ??= createSafeAgent(this.timeoutMs, this.allowPrivate, this.transport);
    return this.agentInstance;
  }

  /** A POST whose answer counts only by its status (the body is discarded). */
  post(target: string, headers: Record<string, string>, body: string): Promise<PostAnswer> {
    return this.send({ method: 'POST', url: target, headers, body }, false);
  }

  /** A request whose answer is read (an API's JSON). */
  request(request: SafeRequest): Promise<ReadAnswer> {
    return this.send(request, true);
  }

  private async send(request: SafeRequest, read: boolean): Promise<ReadAnswer> {
    const started = performance.now();
    const done = (status: number | null, error: string | null, extra: Partial<ReadAnswer> = {}): ReadAnswer => ({
      status,
      error,
      durationMs: Math.round(performance.now() - started),
      ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
    });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return done(null, 'refused: the target is not a valid URL');
    }
    // IP literals never reach the lookup: check them here.
    const literal = ipLiteralOf(url);
    if (!this.allowPrivate && literal !== undefined && !isPublicAddress(literal)) return done(null, 'refused: the target is not a public address');
    try {
      const { method, headers, body } = request;
      const response = await loadUndici().request(url, { dispatcher: this.agent, method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      const text = read ? await readBody(response.body) : (await discardBody(response.body), undefined);
      const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
      return done(response.statusCode, null, { retryAfter: first(response.headers['retry-after']), body: text, contentType: read ? first(response.headers['content-type']) : undefined });
    } catch (err) {
      return done(null, describeSendError(err));
    }
  }

  async close(): Promise<void> {
    await this.agentInstance?.close();
  }
}
