import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';

/**
 * One shared client per app for rate-limit counters. Commands fail fast instead of queueing
 * forever while Redis is down, so a Redis outage degrades to an error, not a hang. ioredis is
 * loaded only when REDIS_URL is set (~4 MB a deployment without Redis does not pay).
 */
export function createRedis(url: string): RedisClient {
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 2000 });
  redis.on('error', () => {});
  return redis;
}
