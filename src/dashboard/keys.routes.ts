import type { FastifyInstance } from 'fastify';
import { pageContext, sendPage } from './page.js';

export async function keyPages(app: FastifyInstance): Promise<void> {
  app.get('/dashboard/keys', { schema: { hide: true } }, async (request, reply) => {
    const keys = await app.services.apiKeys.listApiKeys(request.owner!.id);
    return sendPage(reply, 'keys', pageContext(request, reply, 'API keys'), { keys });
  });

  // The new key is shown in this response only: it is never stored, so it cannot be shown again.
  app.post<{ Body: { name: string } }>(
    '/dashboard/keys',
    { schema: { hide: true, body: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const { apiKey } = await app.services.apiKeys.createApiKey(request.owner!.id, request.body.name);
      const keys = await app.services.apiKeys.listApiKeys(request.owner!.id);
      return sendPage(reply, 'keys', { ...pageContext(request, reply, 'API keys'), notice: 'Key created.' }, { keys, created: apiKey }, 201);
    },
  );

  app.post<{ Params: { id: string } }>('/dashboard/keys/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
    await app.services.apiKeys.revokeApiKey(request.params.id, request.owner!.id);
    return reply.redirect('/dashboard/keys', 303);
  });
}
