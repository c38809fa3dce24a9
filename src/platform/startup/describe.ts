import { resolve } from 'node:path';

/** The database in words, for people: never a password. */
export function describeDatabase(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    return path === ':memory:' ? 'SQLite in memory (nothing is kept)' : `SQLite file ${resolve(path)}`;
  }
  try {
    const url = new URL(databaseUrl);
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
    const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
    return `PostgreSQL database ${database} on ${user}${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL could not be parsed)';
  }
}

/** host:port of a redis:// URL, without its credentials. */
export function describeRedis(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    return `${url.protocol}//${url.hostname}:${url.port || '6379'}`;
  } catch {
    return 'REDIS_URL';
  }
}
