import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pageContext, sendPage, setFlash } from './page.js';

export async function keyPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');

  const renderKeys = async (request: FastifyRequest, reply: FastifyReply, extra: { values?: Record<string, string>; fieldErrors?: Record<string, string>; error?: string } = {}, status = 200) => {
    const keys = await app.services.apiKeys.listApiKeys(request.owner!.id);
    const ctx = { ...pageContext(request, reply, 'API keys'), ...(extra.error ? { error: extra.error } : {}) };
    return sendPage(reply, 'keys', ctx, { keys, values: extra.values ?? {}, fieldErrors: extra.fieldErrors ?? {} }, status);
  };

  app.get('/dashboard/keys', { schema: { hide: true } }, async (request, reply) => renderKeys(request, reply));

  // Post/redirect/get: the new key rides a one-time flash to the list page (it is never stored,
  // so it cannot be shown again), and refreshing that page creates nothing.
  app.post<{ Body: { name?: string } }>(
    '/dashboard/keys',
    { schema: { hide: true, body: { type: 'object', properties: { name: { type: 'string' }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const name = (request.body.name ?? '').trim();
      if (name === '' || name.length > 100) {
        const message = name === '' ? 'Enter a name for the key, so you can tell it apart later.' : `Use at most 100 characters (this name has ${name.length}).`;
        return renderKeys(request, reply, { values: { name: request.body.name ?? '' }, fieldErrors: { name: message }, error: 'The key was not created: see the message by the name.' }, 400);
      }
      const { apiKey } = await app.services.apiKeys.createApiKey(request.owner!.id, name);
      setFlash(reply, { notice: 'Key created.', secret: apiKey, secretLabel: 'API key' }, secure);
      return reply.redirect('/dashboard/keys', 303);
    },
  );

  app.post<{ Params: { id: string } }>('/dashboard/keys/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
    await app.services.apiKeys.revokeApiKey(request.params.id, request.owner!.id);
    return reply.redirect('/dashboard/keys', 303);
  });
}
