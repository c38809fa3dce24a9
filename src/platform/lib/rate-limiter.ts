import type { Redis } from 'ioredis';

/** One counter to read or bump: fixed windows, `windowMs` long, starting at the first hit. */
export interface Counter {
  key: string;
  windowMs: number;
}

export interface Count {
  /** Hits in the current window (after this one, when it was counted). */
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

export type RedisState = 'ok' | 'down' | 'off';

/** After a failed Redis call, counters stay in this process this long before Redis is tried again. */
const REDIS_RETRY_AFTER_MS = 1000;
/** A Redis that accepts the connection but does not answer must not hold a request up. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
const SWEEP_INTERVAL_MS = 30_000;

// One round trip for any number of counters: INCR (ARGV 'i') or taking a hit back ('u') per key,
// each with its window; returns count and remaining time per key.
const COUNT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[2 * i])
  local n
  if ARGV[2 * i - 1] == 'i' then
    n = redis.call('INCR', key)
    if n == 1 then redis.call('PEXPIRE', key, window) end
  else
    n = tonumber(redis.call('GET', key) or '0')
    if ARGV[2 * i - 1] == 'u' and n > 0 then n = redis.call('DECR', key) end
  end
  local ttl = redis.call('PTTL', key)
  if n > 0 and ttl < 0 then redis.call('PEXPIRE', key, window); ttl = window end
  if ttl < 0 then ttl = 0 end
  out[2 * i - 1] = n
  out[2 * i] = ttl
end
return out
`;

type Mode = 'i' | 'u';

type RedisWithScript = Redis & {
  formgateCount(...args: Array<string | number>): Promise<number[]>;
};

/**
 * The rate-limit counters of submit, the management API and log-in. Shared through Redis when
 * REDIS_URL is set; while Redis cannot be reached they live in this process (each instance then
 * counts alone), and they go back to Redis as soon as it answers again. Requests never wait for
 * a Redis that is down: the client does not queue commands while disconnected.
 *
 * In-process counters are never evicted to make room, only dropped once their window is over,
 * so no client can reset its own counter by creating others; callers keep the key space to
 * what clients cannot multiply at will (see the submit limiter).
 */
export class RateLimiter {
  private readonly local = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;
  private redisDownUntil = 0;

  constructor(
    private readonly redis: Redis | undefined,
    private readonly onRedisError: (err: unknown) => void = () => {},
  ) {
    if (redis) {
      redis.defineCommand('formgateCount', { lua: COUNT_SCRIPT });
    }
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Counts one hit on every counter given. */
  hit(...counters: Counter[]): Promise<Count[]> {
    return this.run('i', counters);
  }

  /** Takes back one hit (an attempt that turned out not to count, such as a good password). */
  unhit(...counters: Counter[]): Promise<Count[]> {
    return this.run('u', counters);
  }

  /** For /readyz: where the counters live right now. */
  async redisState(): Promise<RedisState> {
    if (!this.redis) return 'off';
    if (this.redis.status !== 'ready') return 'down';
    try {
      await withTimeout(this.redis.ping(), REDIS_COMMAND_TIMEOUT_MS);
      return 'ok';
    } catch {
      return 'down';
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private async run(mode: Mode, counters: Counter[]): Promise<Count[]> {
    const redis = this.redis as RedisWithScript | undefined;
    if (redis && redis.status === 'ready' && Date.now() >= this.redisDownUntil) {
      try {
        const args: Array<string | number> = [counters.length, ...counters.map((c) => c.key)];
        for (const c of counters) args.push(mode, c.windowMs);
        const flat = await withTimeout(redis.formgateCount(...args), REDIS_COMMAND_TIMEOUT_MS);
        return counters.map((_, i) => ({ count: Number(flat[2 * i]), resetMs: Number(flat[2 * i + 1]) }));
      } catch (err) {
        this.redisDownUntil = Date.now() + REDIS_RETRY_AFTER_MS;
        this.onRedisError(err);
      }
    }
    return counters.map((c) => this.countLocally(mode, c));
  }

  private countLocally(mode: Mode, { key, windowMs }: Counter): Count {
    const now = Date.now();
    let entry = this.local.get(key);
    if (!entry || entry.resetAt <= now) {
      if (mode !== 'i') return { count: 0, resetMs: 0 };
      entry = { count: 0, resetAt: now + windowMs };
      this.local.set(key, entry);
    }
    if (mode === 'i') entry.count++;
    else if (mode === 'u' && entry.count > 0) entry.count--;
    return { count: entry.count, resetMs: entry.resetAt - now };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.local) if (entry.resetAt <= now) this.local.delete(key);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Whole seconds for Retry-After and RateLimit-Reset (at least 1). */
export function secondsUntil(resetMs: number): number {
  return Math.max(1, Math.ceil(resetMs / 1000));
}
