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

/**
 * One POST to an owner-chosen target (a hook delivery, an integration's message): no retries, no
 * redirects followed, a deadline, at most MAX_RESPONSE_BYTES of the answer read, and only
 * addresses that pass the SSRF rules (an IP literal here, a name's addresses at connect time).
 */
export class SafePoster {
  /** Created with the first post: undici is loaded only then. */
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

  async post(target: string, headers: Record<string, string>, body: string): Promise<PostAnswer> {
    const started = performance.now();
    const done = (status: number | null, error: string | null, retryAfter?: string): PostAnswer => ({
      status,
      error,
      durationMs: Math.round(performance.now() - started),
      ...(retryAfter === undefined ? {} : { retryAfter }),
    });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return done(null, 'refused: the target is not a valid URL');
    }
    // IP literals never reach the lookup: check them here.
    const literal = ipLiteralOf(url);
    if (!this.allowPrivate && literal !== undefined && !isPublicAddress(literal)) return done(null, 'refused: the target is not a public address');
    try {
      const response = await loadUndici().request(url, { dispatcher: this.agent, method: 'POST', headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      await discardBody(response.body);
      const retryAfter = response.headers['retry-after'];
      return done(response.statusCode, null, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
    } catch (err) {
      return done(null, describeSendError(err));
    }
  }

  async close(): Promise<void> {
    await this.agentInstance?.close();
  }
}
