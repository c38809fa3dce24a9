import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { AppError } from '../errors.js';
import { clientKey, rateLimited, setRateLimitHeaders } from './rate-limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account owning the request's API key; set by the management API's auth hook. */
    accountId: string;
    apiKeyId: string;
    /** The API key's scope (`read`, `triage` or `manage`). */
    apiKeyScope: 'read' | 'triage' | 'manage';
  }
}

const API_RATE_LIMIT_PER_MINUTE = 120;
/** Requests without a valid key, per client IP: a mistyped key is fine, a key search is not. */
const API_AUTH_FAILURES_PER_MINUTE = 30;

const unauthorized = (message: string): AppError =>
  new AppError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

export interface ManagementApiOptions {
  /** The features' route plugins (the composition root names them: http/ imports no feature). */
  routes: FastifyPluginAsync[];
}

/** Everything under /v1/api (and /v1/mcp): Bearer key auth on every route, then the features' resources. */
export async function managementApi(app: FastifyInstance, options: ManagementApiOptions): Promise<void> {
  app.decorateRequest('accountId', '');
  app.decorateRequest('apiKeyId', '');
  app.decorateRequest('apiKeyScope', 'read');

  // Limits are applied here, before validation and before a 401: every request counts. A valid
  // key counts against its own 120 a minute; a request without a valid key counts against its
  // client IP (30 a minute), past which the answer is 429 instead of 401. Either way one round
  // trip to the counters, and only keys that exist or client addresses make counters.
  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    const token = header ? /^Bearer[ ]+(\S+)$/i.exec(header)?.[1] : undefined;
    const auth = token ? await app.services.apiKeys.authenticate(token) : undefined;
    if (auth) {
      const [count] = await app.limiter.hit({ key: `api:${auth.keyId}`, windowMs: 60_000 });
      setRateLimitHeaders(reply, API_RATE_LIMIT_PER_MINUTE, count!);
      if (count!.count > API_RATE_LIMIT_PER_MINUTE) {
        throw rateLimited(`At most ${API_RATE_LIMIT_PER_MINUTE} requests a minute per API key; try again later.`, count!.resetMs);
      }
      request.accountId = auth.accountId;
      request.apiKeyId = auth.keyId;
      request.apiKeyScope = auth.scope;
      return;
    }
    const [failures] = await app.limiter.hit({ key: `api-denied:${clientKey(request.ip)}`, windowMs: 60_000 });
    if (failures!.count > API_AUTH_FAILURES_PER_MINUTE) {
      throw rateLimited(`At most ${API_AUTH_FAILURES_PER_MINUTE} requests a minute without a valid API key; try again later.`, failures!.resetMs);
    }
    if (!header) throw unauthorized('An API key is required: send Authorization: Bearer <API_KEY>.');
    if (!token) throw unauthorized('The Authorization header must be "Bearer <API_KEY>".');
    throw unauthorized('The API key is malformed, unknown or revoked.');
  });

  for (const routes of options.routes) await app.register(routes);
}
