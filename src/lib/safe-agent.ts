import type { Agent } from 'undici';
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
