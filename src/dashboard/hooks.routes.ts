import type { FastifyInstance } from 'fastify';
import { pageContext, sendPage } from './page.js';

const RECENT_ATTEMPTS = 10;

export async function hookPages(app: FastifyInstance): Promise<void> {
  app.get('/dashboard/hooks', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const hooks = await app.services.hooks.listHooks(accountId);
    const withAttempts = await Promise.all(
      hooks.map(async (hook) => ({ ...hook, attempts: await app.services.hooks.listRecentDeliveries(accountId, hook.id, RECENT_ATTEMPTS) })),
    );
    return sendPage(reply, 'hooks', pageContext(request, reply, 'Hooks'), { hooks: withAttempts });
  });

  app.post<{ Params: { id: string } }>('/dashboard/hooks/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    await app.services.hooks.deleteHook(request.owner!.id, request.params.id);
    return reply.redirect('/dashboard/hooks', 303);
  });
}
