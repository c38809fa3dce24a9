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

  await app.register(accountRoutes);
  await app.register(formRoutes);
  await app.register(submissionApiRoutes);
  await app.register(hookRoutes);
}
