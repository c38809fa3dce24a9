/** What one attempt's answer means for the message and the integration (docs/integrations.md). */
export type AttemptOutcome =
  | { kind: 'sent' }
  /** Try again later; `retryAfterMs` when the platform said when (429 Retry-After). */
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  /** The platform says the target is gone or refuses us: turn the integration off. */
  | { kind: 'disable'; reason: string }
  | { kind: 'failed'; reason: string };

export interface HttpAnswer {
  status: number | null;
  /** Network error or timeout, when there was no answer. */
  error: string | null;
  retryAfter?: string | undefined;
}

/** Longest wait a Retry-After may ask for; beyond it the usual backoff applies. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** Retry-After as delay-seconds or an HTTP date, in milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
}

const DISABLING: Record<number, string> = {
  401: 'the platform answered 401 Unauthorized: the token or URL is no longer valid',
  403: 'the platform answered 403 Forbidden: the bot or webhook may no longer post there',
  404: 'the platform answered 404 Not Found: the webhook, topic or bot no longer exists',
  410: 'the platform answered 410 Gone: the webhook was removed',
};

export function classifyAnswer(answer: HttpAnswer, now = Date.now()): AttemptOutcome {
  const { status } = answer;
  if (status === null) {
    // A refused address will not become public by waiting.
    if (answer.error?.startsWith('refused')) return { kind: 'failed', reason: answer.error };
    return { kind: 'retry', reason: answer.error ?? 'no answer' };
  }
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(answer.retryAfter, now);
    return { kind: 'retry', reason: 'HTTP 429 Too Many Requests', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (status >= 500 || status === 408) return { kind: 'retry', reason: `HTTP ${status}` };
  const disabling = DISABLING[status];
  if (disabling) return { kind: 'disable', reason: disabling };
  return { kind: 'failed', reason: `HTTP ${status}` };
}
