import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * Once the server is closing, a request that still arrives (pipelined or on a kept-alive
 * connection) is refused with 503 in the error envelope, and its connection closed.
 * Fastify's own `return503OnClosing` answers with its own body instead.
 */
export function refuseRequestsWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback style: no promise per request while the server is not closing.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header('connection', 'close');
    // No error code answers 503 (errors.ts): internal_error's envelope with the status load
    // balancers understand, as /readyz does.
    const body = new AppError('internal_error', 'The server is shutting down; try again.').toBody();
    reply.code(503).type('application/json; charset=utf-8').send(body);
  });
}
