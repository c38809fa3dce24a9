import type { FastifyInstance } from 'fastify';
import { accountJsonSchema } from './account.schemas.js';

export async function accountRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/me',
    {
      schema: {
        tags: ['account'],
        summary: 'The account that owns the API key',
        security: [{ bearerAuth: [] }],
        response: {
          200: { type: 'object', required: ['user'], properties: { user: accountJsonSchema } },
          401: { $ref: 'ErrorBody#' },
        },
      },
    },
    async (request) => {
      const { id, email, displayName, planId } = await app.services.accounts.getAccount(request.accountId);
      return { user: { id, email, displayName, planId } };
    },
  );
}
