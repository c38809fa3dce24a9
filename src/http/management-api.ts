import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { accountRoutes } from '../accounts/account.routes.js';
import { formRoutes } from '../forms/form.routes.js';
import { hookRoutes } from '../hooks/hook.routes.js';
import { submissionApiRoutes } from '../submissions/submission-api.routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account owning the request's API key; set by the management API's auth hook. */
    accountId: string;
    apiKeyId: string;
  }
}

export const API_RATE_LIMIT_PER_MINUTE = 120;

const unauthorized = (message: string): AppError =>
  new AppError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

/** Everything under /v1/api: Bearer key auth on every route, then the read-only resources and hooks. */
export async function managementApi(app: FastifyInstance): Promise<void> {
  app.decorateRequest('accountId', '');
  app.decorateRequest('apiKeyId', '');

  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('An API key is required: send Authorization: Bearer <API_KEY>.');
    const match = /^Bearer[ ]+(\S+)$/i.exec(header);
    if (!match) throw unauthorized('The Authorization header must be "Bearer <API_KEY>".');
    const auth = await app.services.apiKeys.authenticate(match[1]!);
    if (!auth) throw unauthorized('The API key is malformed, unknown or revoked.');
    request.accountId = auth.accountId;
    request.apiKeyId = auth.keyId;
  });

  // 120 requests a minute per key, counted after authentication so the key is known; shared
  // through Redis when several instances run.
  await app.register(rateLimit, {
    max: API_RATE_LIMIT_PER_MINUTE,
    timeWindow: 60_000,
    hook: 'preHandler',
    keyGenerator: (request) => request.apiKeyId,
    enableDraftSpec: true,
    ...(app.redis ? { redis: app.redis, nameSpace: 'formgate-api-' } : {}),
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `At most ${context.max} requests a minute per API key; try again later.`, {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      }),
  });

  await app.register(accountRoutes);
  await app.register(formRoutes);
  await app.register(submissionApiRoutes);
  await app.register(hookRoutes);
}
