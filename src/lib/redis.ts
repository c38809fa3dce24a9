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
