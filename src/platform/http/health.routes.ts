import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../db/health.repository.js';

const okSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } as const;

const check = { type: 'string', enum: ['ok', 'down', 'off'] } as const;
const readySchema = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded', 'down'] },
    checks: { type: 'object', required: ['database', 'redis'], properties: { database: check, redis: check } },
  },
} as const;

/** A database that takes longer than this to answer `select 1` counts as down. */
const DATABASE_CHECK_TIMEOUT_MS = 2000;

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { schema: { hide: true, response: { 200: okSchema } } }, async () => ({ ok: true }));

  // Readiness: the database is required (503 without it); Redis only makes limits shared, so
  // without it the service is degraded, still ready (docs/configuration.md, REDIS_URL).
  app.get('/readyz', { schema: { hide: true, response: { 200: readySchema, 503: readySchema } } }, async (request, reply) => {
    const [database, redis] = await Promise.all([databaseState(app, request.log), app.limiter.redisState()]);
    const checks = { database, redis };
    if (database !== 'ok') return reply.code(503).send({ status: 'down', checks });
    return { status: redis === 'down' ? 'degraded' : 'ok', checks };
  });
}

async function databaseState(app: FastifyInstance, log: FastifyInstance['log']): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      pingDatabase(app.services.handle.db),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_CHECK_TIMEOUT_MS} ms`)), DATABASE_CHECK_TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch (err) {
    log.warn({ err }, 'database not reachable');
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
