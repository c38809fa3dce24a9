import { SafePoster, type PostAnswer, type SafeTransportOptions } from '../../platform/lib/safe-agent.js';
import type { PlatformRequest } from './integration.types.js';

/**
 * POSTs a platform request through the SSRF-safe poster hook deliveries use (no redirects
 * followed, a deadline, at most 64 KiB of the answer read, only public addresses unless
 * HOOK_ALLOW_PRIVATE_TARGETS), to https: URLs only.
 */
export class IntegrationSender {
  private readonly poster: SafePoster;

  constructor(timeoutMs: number, allowPrivate: boolean, transport: SafeTransportOptions = {}) {
    this.poster = new SafePoster(timeoutMs, allowPrivate, transport);
  }

  async post(request: PlatformRequest): Promise<PostAnswer> {
    // A URL that does not parse is refused by the poster, in its words.
    if (URL.canParse(request.url) && new URL(request.url).protocol !== 'https:') {
      return { status: null, error: 'refused: the target is not an https: URL', durationMs: 0 };
    }
    return this.poster.post(request.url, { 'user-agent': 'Formgate-Integrations/1', ...request.headers }, request.body);
  }

  close(): Promise<void> {
    return this.poster.close();
  }
}
