import type { AttemptAnswer, RetryPolicy } from './outbox.types.js';

/** A channel that retries keeps when each item is due (`next_attempt_at`); one sent once has no such column. */
export const retries = (policy: RetryPolicy): boolean => policy.maxAttempts > 1;

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
