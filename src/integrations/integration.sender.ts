import type { Agent } from 'undici';
import { ipLiteralOf, isPublicAddress } from '../lib/addresses.js';
import { createSafeAgent, describeSendError, discardBody, type SafeTransportOptions } from '../lib/safe-agent.js';
import { loadUndici } from '../lib/undici.js';
import type { PlatformRequest } from './integration.types.js';
import type { HttpAnswer } from './outcome.js';

export interface PostResult extends HttpAnswer {
  durationMs: number;
}

/**
 * POSTs a platform request through the SSRF-safe dispatcher hook deliveries use: no redirects
 * followed, a deadline, at most 64 KiB of the answer read, and only public addresses contacted
 * (unless HOOK_ALLOW_PRIVATE_TARGETS), checked at connect time.
 */
export class IntegrationSender {
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

  async post(request: PlatformRequest): Promise<PostResult> {
    const started = performance.now();
    const done = (answer: HttpAnswer): PostResult => ({ ...answer, durationMs: Math.round(performance.now() - started) });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return done({ status: null, error: 'refused: the target is not a valid URL' });
    }
    if (url.protocol !== 'https:') return done({ status: null, error: 'refused: the target is not an https: URL' });
    const literal = ipLiteralOf(url);
    if (!this.allowPrivate && literal !== undefined && !isPublicAddress(literal)) {
      return done({ status: null, error: 'refused: the target is not a public address' });
    }
    try {
      const response = await loadUndici().request(url, {
        dispatcher: this.agent,
        method: 'POST',
        headers: { 'user-agent': 'Formgate-Integrations/1', ...request.headers },
        body: request.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await discardBody(response.body);
      const retryAfter = response.headers['retry-after'];
      return done({ status: response.statusCode, error: null, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
    } catch (err) {
      return done({ status: null, error: describeSendError(err) });
    }
  }

  async close(): Promise<void> {
    await this.agentInstance?.close();
  }
}
