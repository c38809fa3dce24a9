import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
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

  app.post<{ Body: { email?: unknown } }>('/dashboard/account/erase', { schema: { hide: true } }, async (request, reply) => {
    const email = typeof request.body?.email === 'string' ? request.body.email : '';
    try {
      const { deleted } = await app.services.lifecycle.eraseByEmail(request.owner!.id, email);
      return sendPage(reply, 'account', { ...pageContext(request, reply, 'Account'), notice: `${deleted} submission(s) with ${email.trim()} erased.` }, { account: request.owner });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
      return sendPage(reply, 'account', { ...pageContext(request, reply, 'Account'), error: err.message }, { account: request.owner }, 400);
    }
  });
}
