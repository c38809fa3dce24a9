/**
 * A channel's retry policy: the outbox computes every schedule from it, so a channel never
 * counts attempts or backoff itself.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retried). */
  maxAttempts: number;
  /** Delay before the retry that follows attempt `attempt` (1-based). */
  backoffMs(attempt: number): number;
}

/** A channel that retries keeps when each item is due (`next_attempt_at`); one sent once has no such column. */
export const retries = (policy: RetryPolicy): boolean => policy.maxAttempts > 1;

/** What a channel made of one attempt's answer. */
export type AttemptAnswer =
  | { kind: 'sent' }
  /** Worth trying again (a timeout, a 5xx, a 429); `retryAfterMs` wins over the backoff. */
  | { kind: 'temporary'; retryAfterMs?: number | undefined }
  /** Trying again cannot help (a refusal, a bounce, a message that cannot be built). */
  | { kind: 'permanent' };

/** The message's next step after an attempt. */
export type NextStep =
  | { state: 'sent' }
  | { state: 'pending'; retryInMs: number }
  /** `gaveUp`: a temporary failure on the last allowed attempt. */
  | { state: 'failed'; gaveUp: boolean };

/** `attempts` counts the attempt just made. */
export function nextStep(policy: RetryPolicy, attempts: number, answer: AttemptAnswer): NextStep {
  if (answer.kind === 'sent') return { state: 'sent' };
  if (answer.kind === 'permanent') return { state: 'failed', gaveUp: false };
  if (attempts >= policy.maxAttempts) return { state: 'failed', gaveUp: true };
  return { state: 'pending', retryInMs: answer.retryAfterMs ?? policy.backoffMs(attempts) };
}

/** Emails and chat messages: after `baseMs`, then ×4 each time, at most five attempts in all (docs/email.md). */
export function fourfoldBackoff(baseMs: number): RetryPolicy {
  return { maxAttempts: 5, backoffMs: (attempt) => baseMs * 4 ** (attempt - 1) };
}

/** A hook delivery is attempted once; only its owner sends it again (docs/api.md, REST hooks). */
export const ONCE: RetryPolicy = { maxAttempts: 1, backoffMs: () => 0 };
