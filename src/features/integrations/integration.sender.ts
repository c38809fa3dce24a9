import { SafePoster, type PostAnswer, type SafeTransportOptions } from '../../platform/lib/safe-agent.js';
import type { ApiAnswer, ApiRequest } from './api-client.js';
import type { PlatformRequest } from './integration.types.js';

const USER_AGENT = 'Formgate-Integrations/1';
const NOT_HTTPS = 'refused: the target is not an https: URL';
/** A URL that does not parse is refused by the poster, in its words. */
const isPlainHttp = (url: string) => URL.canParse(url) && new URL(url).protocol !== 'https:';

/**
 * Sends to owner-chosen targets through the SSRF-safe poster hook deliveries use (no redirects
 * followed, a deadline, at most 64 KiB of the answer read, only public addresses unless
 * HOOK_ALLOW_PRIVATE_TARGETS), to https: URLs only: a chat platform's POST, or the JSON API of
 * a service the owner runs (listmonk).
 */
export class IntegrationSender {
  private readonly poster: SafePoster;

  constructor(timeoutMs: number, allowPrivate: boolean, transport: SafeTransportOptions = {}) {
    this.poster = new SafePoster(timeoutMs, allowPrivate, transport);
  }

  async post(request: PlatformRequest): Promise<PostAnswer> {
    if (isPlainHttp(request.url)) return { status: null, error: NOT_HTTPS, durationMs: 0 };
    return this.poster.post(request.url, { 'user-agent': USER_AGENT, ...request.headers }, request.body);
  }

  /** A JSON request whose answer is read, as the API client of the services Formgate knows (api-client.ts) makes it. */
  async request(request: ApiRequest): Promise<ApiAnswer> {
    if (isPlainHttp(request.url)) return { status: null, error: NOT_HTTPS, durationMs: 0, body: undefined };
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json', ...request.headers };
    let body: string | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    const answer = await this.poster.request({ method: request.method, url: request.url, headers, ...(body === undefined ? {} : { body }) });
    let parsed: unknown = answer.body;
    if (answer.body !== undefined && (answer.contentType ?? '').includes('json')) {
      try {
        parsed = JSON.parse(answer.body);
      } catch {
        // A broken JSON answer is kept as text: the status still says what happened.
      }
    }
    return { status: answer.status, error: answer.error, durationMs: answer.durationMs, retryAfter: answer.retryAfter, body: parsed };
  }

  close(): Promise<void> {
    return this.poster.close();
  }
}
