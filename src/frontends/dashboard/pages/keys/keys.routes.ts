import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_SCOPES } from '../../../../features/api-keys/api-key.types.js';
import { notFound } from '../../../../platform/errors.js';
import { pageContext, sendPage, setFlash } from '../../page.js';
import type { ConfirmModel } from '../../views/confirm.views.js';

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
  app.post<{ Body: { name?: string; scope?: string } }>(
    '/dashboard/keys',
    { schema: { hide: true, body: { type: 'object', properties: { name: { type: 'string' }, scope: { type: 'string' }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const name = (request.body.name ?? '').trim();
      const scope = request.body.scope ?? 'read';
      const values = { name: request.body.name ?? '', scope };
      if (name === '' || name.length > 100) {
        const message = name === '' ? 'Enter a name for the key, so you can tell it apart later.' : `Use at most 100 characters (this name has ${name.length}).`;
        return renderKeys(request, reply, { values, fieldErrors: { name: message }, error: 'The key was not created: see the message by the name.' }, 400);
      }
      if (!(API_KEY_SCOPES as readonly string[]).includes(scope)) {
        return renderKeys(request, reply, { values, fieldErrors: { scope: 'Choose Read, Read and triage, or Read, triage and manage.' }, error: 'The key was not created: see the message by the scope.' }, 400);
      }
      const { apiKey } = await app.services.apiKeys.createApiKey(request.owner!.id, name, scope);
      setFlash(reply, { notice: 'Key created.', secret: apiKey, secretLabel: 'API key' }, secure);
      return reply.redirect('/dashboard/keys', 303);
    },
  );

  app.get<{ Params: { id: string } }>('/dashboard/keys/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
    const key = (await app.services.apiKeys.listApiKeys(request.owner!.id)).find((k) => k.id === request.params.id);
    if (!key) throw notFound('Key');
    const model: ConfirmModel = key.revokedAt
      ? { heading: 'Already revoked', question: `The key “${key.name}” is already revoked.`, action: '/dashboard/keys', back: '/dashboard/keys' }
      : {
          heading: `Revoke “${key.name}”?`,
          question: `Anything using the key ${key.prefix}… stops working at its next request. This cannot be undone: you would create a new key.`,
          action: `/dashboard/keys/${key.id}/revoke`,
          confirmLabel: 'Revoke key',
          back: '/dashboard/keys',
        };
    return sendPage(reply, 'confirm', pageContext(request, reply, 'Revoke key'), { ...model });
  });

  app.post<{ Params: { id: string } }>('/dashboard/keys/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
    await app.services.apiKeys.revokeApiKey(request.params.id, request.owner!.id);
    setFlash(reply, { notice: 'Key revoked.' }, secure);
    return reply.redirect('/dashboard/keys', 303);
  });
}
