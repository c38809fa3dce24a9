import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';

/**
 * One shared client per app for rate-limit counters. Commands are not queued while the
 * connection is down (they fail at once and the limiter counts in-process); the client keeps
 * reconnecting in the background, so counters return to Redis when it is back. ioredis is
 * loaded only when REDIS_URL is set (~4 MB a deployment without Redis does not pay).
 */
export function createRedis(url: string): RedisClient {
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  redis.on('error', () => {});
  return redis;
}

/** Whether Redis answers a PING within the time given (the start-up check; never throws). */
export async function redisAnswers(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([redis.ping().then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
