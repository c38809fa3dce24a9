import { describe, expect, it } from 'vitest';
import { nextStep, retries } from '../../src/features/outbox/outbox.policy.js';
import { fourfoldBackoff, ONCE, type RetryPolicy } from '../../src/features/outbox/outbox.types.js';

const threeTries: RetryPolicy = { maxAttempts: 3, backoffMs: (attempt) => attempt * 1000 };

describe('nextStep', () => {
  it('a sent message is done, whatever the count of attempts', () => {
    expect(nextStep(threeTries, 1, { kind: 'sent' })).toEqual({ state: 'sent' });
    expect(nextStep(threeTries, 3, { kind: 'sent' })).toEqual({ state: 'sent' });
  });

  it('a permanent failure fails at once and is not counted as giving up', () => {
    expect(nextStep(threeTries, 1, { kind: 'permanent' })).toEqual({ state: 'failed', gaveUp: false });
    expect(nextStep(threeTries, 3, { kind: 'permanent' })).toEqual({ state: 'failed', gaveUp: false });
  });

  it('a temporary failure waits the backoff of the attempt just made, up to the last allowed attempt', () => {
    expect(nextStep(threeTries, 1, { kind: 'temporary' })).toEqual({ state: 'pending', retryInMs: 1000 });
    expect(nextStep(threeTries, 2, { kind: 'temporary' })).toEqual({ state: 'pending', retryInMs: 2000 });
    expect(nextStep(threeTries, 3, { kind: 'temporary' })).toEqual({ state: 'failed', gaveUp: true });
    // Attempts counted past the limit (a policy lowered since) give up too.
    expect(nextStep(threeTries, 4, { kind: 'temporary' })).toEqual({ state: 'failed', gaveUp: true });
  });

  it("the receiver's Retry-After wins over the backoff, zero included, but not over the attempt limit", () => {
    expect(nextStep(threeTries, 1, { kind: 'temporary', retryAfterMs: 90_000 })).toEqual({ state: 'pending', retryInMs: 90_000 });
    expect(nextStep(threeTries, 2, { kind: 'temporary', retryAfterMs: 0 })).toEqual({ state: 'pending', retryInMs: 0 });
    expect(nextStep(threeTries, 2, { kind: 'temporary', retryAfterMs: undefined })).toEqual({ state: 'pending', retryInMs: 2000 });
    expect(nextStep(threeTries, 3, { kind: 'temporary', retryAfterMs: 1 })).toEqual({ state: 'failed', gaveUp: true });
  });
});

describe('fourfoldBackoff', () => {
  it('waits the base, then four times as long each time, over five attempts in all', () => {
    const policy = fourfoldBackoff(30_000);
    expect(policy.maxAttempts).toBe(5);
    const schedule = [1, 2, 3, 4, 5].map((attempt) => nextStep(policy, attempt, { kind: 'temporary' }));
    expect(schedule).toEqual([
      { state: 'pending', retryInMs: 30_000 },
      { state: 'pending', retryInMs: 120_000 },
      { state: 'pending', retryInMs: 480_000 },
      { state: 'pending', retryInMs: 1_920_000 },
      { state: 'failed', gaveUp: true },
    ]);
  });
});

describe('ONCE and retries', () => {
  it('a channel sent once gives up on its first temporary failure and keeps no schedule', () => {
    expect(nextStep(ONCE, 1, { kind: 'temporary', retryAfterMs: 5000 })).toEqual({ state: 'failed', gaveUp: true });
    expect(retries(ONCE)).toBe(false);
    expect(retries(fourfoldBackoff(1000))).toBe(true);
    expect(retries({ maxAttempts: 2, backoffMs: () => 0 })).toBe(true);
  });
});
