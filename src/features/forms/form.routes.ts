import type { FastifyInstance } from 'fastify';
import { MANAGEMENT, errorResponses } from '../../platform/http/error-responses.js';
import { formJsonSchema } from './form.schemas.js';
import { formToApiForm } from './form.types.js';

export async function formRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/forms',
    {
      schema: {
        tags: ['forms'],
        operationId: 'listForms',
        summary: "The account's forms, newest first",
        security: [{ bearerAuth: [] }],
        response: {
          200: { description: 'Every form of the account', type: 'object', required: ['forms'], properties: { forms: { type: 'array', items: formJsonSchema } } },
          ...errorResponses(MANAGEMENT),
        },
      },
    },
    async (request) => ({ forms: (await app.services.forms.listForms(request.accountId)).map(formToApiForm) }),
  );
}
