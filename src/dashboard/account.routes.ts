import type { FastifyInstance } from 'fastify';
import { pageContext, sendPage } from './page.js';

export async function accountPages(app: FastifyInstance): Promise<void> {
  app.get('/dashboard/account', { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, 'account', pageContext(request, reply, 'Account'), { account: request.owner }),
  );

  app.post<{ Body: { displayName: string } }>(
    '/dashboard/account',
    { schema: { hide: true, body: { type: 'object', required: ['displayName'], properties: { displayName: { type: 'string' }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const account = await app.services.accounts.setDisplayName(request.owner!.id, request.body.displayName);
      return sendPage(reply, 'account', { ...pageContext(request, reply, 'Account'), account, notice: 'Saved.' }, { account });
    },
  );
}
