import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../db/health.repository.js';
import { AppError } from '../errors.js';
import { sendAppError } from './error-handler.js';

const okSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } as const;

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { schema: { hide: true, response: { 200: okSchema } } }, async () => ({ ok: true }));

  app.get('/readyz', { schema: { hide: true, response: { 200: okSchema } } }, async (request, reply) => {
    try {
      await pingDatabase(app.services.handle.db);
      return { ok: true };
    } catch (err) {
      request.log.warn({ err }, 'database not reachable');
      // 503 is not one of the contract's codes; readiness is an operator endpoint, so it answers
      // with internal_error's envelope and the status load balancers understand.
      return sendAppError(reply, new AppError('internal_error', 'The database is not reachable.')).code(503);
    }
  });
}
