import type { Agent } from 'undici';
import { Webhook } from 'standardwebhooks';
import { loadUndici } from '../lib/undici.js';
import { ipLiteralOf, isPublicAddress } from '../lib/addresses.js';
import { createSafeLookup, systemResolver, type Resolver } from '../lib/safe-lookup.js';

const MAX_RESPONSE_BYTES = 64 * 1024;

/** Test seams: trust a local CA, resolve names through a fake DNS. Production passes nothing. */
export interface HookTransportOptions {
  ca?: string;
  resolve?: Resolver;
}

export interface DeliveryRequest {
  /** The Standard Webhooks message ID: `${submissionId}.${hookId}`. */
  id: string;
  targetUrl: string;
  secret: string;
  body: string;
}

export interface DeliveryResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, the Standard Webhooks signature. */
export function signDelivery(secret: string, id: string, timestamp: Date, body: string): string {
  return new Webhook(secret).sign(id, timestamp, body);
}

/**
 * One POST, no retries, no redirects followed, a deadline, and at most 64 KiB of the answer read.
 * Connects only to addresses that pass the SSRF rules, checked at connect time.
 */
export class DeliverySender {
  /** Created with the first delivery (undici is loaded only then). */
  private agentInstance: Agent | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
    private readonly transport: HookTransportOptions = {},
  ) {}

  private get agent(): Agent {
    this.agentInstance ??= new (loadUndici().Agent)({
      connect: {
        lookup: createSafeLookup(this.transport.resolve ?? systemResolver, this.allowPrivate),
        ...(this.transport.ca ? { ca: this.transport.ca } : {}),
        timeout: this.timeoutMs,
      },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    return this.agentInstance;
  }

  async send(delivery: DeliveryRequest): Promise<DeliveryResult> {
    const started = performance.now();
    const done = (status: number | null, error: string | null): DeliveryResult => ({
      status,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    const url = new URL(delivery.targetUrl);
    // IP literals never reach the lookup: check them here.
    const literal = ipLiteralOf(url);
    if (!this.allowPrivate && literal !== undefined && !isPublicAddress(literal)) {
      return done(null, 'refused: the target is not a public address');
    }
    const now = new Date();
    try {
      const response = await loadUndici().request(url, {
        dispatcher: this.agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Formgate-Hooks/1',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signDelivery(delivery.secret, delivery.id, now, delivery.body),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await discardBody(response.body);
      return done(response.statusCode, null);
    } catch (err) {
      return done(null, describeError(err));
    }
  }

  async close(): Promise<void> {
    await this.agentInstance?.close();
  }
}

/** Reads at most MAX_RESPONSE_BYTES of a response, then drops the connection. */
async function discardBody(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
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
    // The status is what counts; a body that breaks off is no failure of the delivery.
  }
}

function describeError(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  const cause = e.cause ?? e;
  if (cause.code === 'FORMGATE_REFUSED_ADDRESS' || e.code === 'FORMGATE_REFUSED_ADDRESS') {
    return `refused: ${cause.message ?? e.message}`;
  }
  return (cause.code ?? e.code ?? cause.message ?? e.message ?? 'delivery failed').slice(0, 200);
}
