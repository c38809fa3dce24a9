import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

const REQUEST_ID_HEADER = 'x-request-id';

/** 1 to 128 printable ASCII characters: anything else could forge or break log lines. */
const CLIENT_REQUEST_ID = /^[\x20-\x7e]{1,128}$/;

/**
 * Fastify's genReqId: the client's X-Request-Id when it is acceptable (so a proxy's or a
 * caller's ID follows the request through our logs), else a new UUID. Fastify's own
 * requestIdHeader option would take any value, so the header is read here instead.
 */
export function requestIdFor(req: IncomingMessage): string {
  const sent = req.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** Every response names its request, errors and 404s included. */
export function echoRequestId(app: FastifyInstance): void {
  // Callback style: no promise per request on the submit path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
