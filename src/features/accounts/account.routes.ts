import type { FastifyInstance } from 'fastify';
import { MANAGEMENT, errorResponses } from '../../platform/http/error-responses.js';
import { accountJsonSchema } from './account.schemas.js';

export async function accountRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/me',
    {
      schema: {
        tags: ['account'],
        operationId: 'getMe',
        summary: 'The account that owns the API key',
        security: [{ bearerAuth: [] }],
        response: {
          200: { description: 'The account', type: 'object', required: ['user'], properties: { user: accountJsonSchema } },
          ...errorResponses(MANAGEMENT),
        },
      },
    },
    async (request) => {
      const { id, email, displayName, planId } = await app.services.accounts.getAccount(request.accountId);
      return { user: { id, email, displayName, planId } };
    },
  );
}
