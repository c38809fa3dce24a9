import { Redis } from 'ioredis';

/**
 * One shared client per app for rate-limit counters. Commands fail fast instead of queueing
 * forever while Redis is down, so a Redis outage degrades to an error, not a hang.
 */
export function createRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 2000 });
  redis.on('error', () => {});
  return redis;
}

/** Whether Redis answers a PING within the time given (the start-up check; never throws). */
export async function redisAnswers(redis: Redis, timeoutMs: number): Promise<boolean> {
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
