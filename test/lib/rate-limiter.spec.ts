import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter, secondsUntil } from '../../src/platform/lib/rate-limiter.js';

const MINUTE = { key: 'submit:1', windowMs: 60_000 };
const limiters: RateLimiter[] = [];
const limiter = (redis?: Redis, onRedisError?: (err: unknown) => void) => {
  const made = new RateLimiter(redis, onRedisError);
  limiters.push(made);
  return made;
};

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
});
afterEach(() => {
  limiters.splice(0).forEach((l) => l.close());
  vi.useRealTimers();
});

describe('RateLimiter without Redis', () => {
  it('counts hits in a fixed window that starts at the first one', async () => {
    const l = limiter();
    expect(await l.hit(MINUTE)).toEqual([{ count: 1, resetMs: 60_000 }]);
    vi.advanceTimersByTime(59_999);
    expect(await l.hit(MINUTE)).toEqual([{ count: 2, resetMs: 1 }]);
    vi.advanceTimersByTime(1);
    // The window is over at its last millisecond: a new one starts with this hit.
    expect(await l.hit(MINUTE)).toEqual([{ count: 1, resetMs: 60_000 }]);
  });

  it('counts every counter of a call apart, each with its own window', async () => {
    const l = limiter();
    const perKey = { key: 'api:key_1', windowMs: 60_000 };
    const perAddress = { key: 'api:127.0.0.1', windowMs: 1000 };
    await l.hit(perKey, perAddress);
    vi.advanceTimersByTime(1000);
    expect(await l.hit(perKey, perAddress)).toEqual([
      { count: 2, resetMs: 59_000 },
      { count: 1, resetMs: 1000 },
    ]);
    expect(await l.hit({ key: 'api:other', windowMs: 1000 })).toEqual([{ count: 1, resetMs: 1000 }]);
  });

  it('takes a hit back, never below zero, and a counter never hit stays absent', async () => {
    const l = limiter();
    await l.hit(MINUTE);
    await l.hit(MINUTE);
    expect(await l.unhit(MINUTE)).toEqual([{ count: 1, resetMs: 60_000 }]);
    expect(await l.unhit(MINUTE)).toEqual([{ count: 0, resetMs: 60_000 }]);
    expect(await l.unhit(MINUTE)).toEqual([{ count: 0, resetMs: 60_000 }]);
    const fresh = { key: 'login:x', windowMs: 60_000 };
    expect(await l.unhit(fresh)).toEqual([{ count: 0, resetMs: 0 }]);
    vi.advanceTimersByTime(30_000);
    // Taking back did not open a window: the first hit still opens a full one.
    expect(await l.hit(fresh)).toEqual([{ count: 1, resetMs: 60_000 }]);
  });

  it('says Redis is off, and forgets a window once it is over', async () => {
    const l = limiter();
    expect(await l.redisState()).toBe('off');
    await l.hit(MINUTE);
    vi.advanceTimersByTime(60_000);
    expect(await l.unhit(MINUTE)).toEqual([{ count: 0, resetMs: 0 }]);
  });
});

/** A Redis stand-in: only what the limiter uses, its status and the counting script. */
function fakeRedis(script: (...args: Array<string | number>) => Promise<number[]>) {
  const calls: Array<Array<string | number>> = [];
  const redis = {
    status: 'ready',
    defineCommand: () => {},
    formgateCount: (...args: Array<string | number>) => {
      calls.push(args);
      return script(...args);
    },
  };
  return { redis, calls, asRedis: redis as unknown as Redis };
}

describe('RateLimiter with Redis', () => {
  it('sends every counter in one call and reads the count and time left of each', async () => {
    const { asRedis, calls } = fakeRedis(async () => [3, 500, 1, 900]);
    const l = limiter(asRedis);
    const second = { key: 'submit:2', windowMs: 1000 };
    expect(await l.hit(MINUTE, second)).toEqual([
      { count: 3, resetMs: 500 },
      { count: 1, resetMs: 900 },
    ]);
    await l.unhit(second);
    expect(calls).toEqual([
      [2, 'submit:1', 'submit:2', 'i', 60_000, 'i', 1000],
      [1, 'submit:2', 'u', 1000],
    ]);
  });

  it('counts in the process while Redis fails, and tries Redis again a second after its last failure', async () => {
    let failing = true;
    const { asRedis, calls } = fakeRedis(async () => {
      if (failing) throw new Error('ECONNRESET');
      return [7, 100];
    });
    const errors: unknown[] = [];
    const l = limiter(asRedis, (err) => errors.push(err));
    expect(await l.hit(MINUTE)).toEqual([{ count: 1, resetMs: 60_000 }]);
    expect(errors).toHaveLength(1);
    vi.advanceTimersByTime(999);
    expect(await l.hit(MINUTE)).toEqual([{ count: 2, resetMs: 59_001 }]);
    expect(calls).toHaveLength(1);
    failing = false;
    vi.advanceTimersByTime(1);
    expect(await l.hit(MINUTE)).toEqual([{ count: 7, resetMs: 100 }]);
    expect(calls).toHaveLength(2);
    expect(errors).toHaveLength(1);
  });

  it('does not wait for a Redis that does not answer, nor call one that is not connected', async () => {
    const { redis, asRedis, calls } = fakeRedis(() => new Promise<number[]>(() => {}));
    const errors: unknown[] = [];
    const l = limiter(asRedis, (err) => errors.push(err));
    const counted = l.hit(MINUTE);
    await vi.advanceTimersByTimeAsync(500);
    // Counted in the process from the moment Redis was given up on.
    expect(await counted).toEqual([{ count: 1, resetMs: 60_000 }]);
    expect((errors[0] as Error).message).toMatch(/did not answer within 500 ms/);

    redis.status = 'reconnecting';
    vi.advanceTimersByTime(5000);
    expect(await l.hit(MINUTE)).toEqual([{ count: 2, resetMs: 55_000 }]);
    expect(calls).toHaveLength(1);
    expect(await l.redisState()).toBe('down');
  });
});

describe('secondsUntil', () => {
  it('rounds up to whole seconds, at least one', () => {
    expect([-5, 0, 1, 999, 1000, 1001, 59_999, 60_000].map(secondsUntil)).toEqual([1, 1, 1, 1, 1, 2, 60, 60]);
  });
});
