import type { FastifyInstance } from 'fastify';
import { formJsonSchema } from './form.schemas.js';
import { formToApiForm } from './form.types.js';

export async function formRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/forms',
    {
      schema: {
        tags: ['forms'],
        summary: "The account's forms, newest first",
        security: [{ bearerAuth: [] }],
        response: {
          200: { type: 'object', required: ['forms'], properties: { forms: { type: 'array', items: formJsonSchema } } },
          401: { $ref: 'ErrorBody#' },
        },
      },
    },
    async (request) => ({ forms: (await app.services.forms.listForms(request.accountId)).map(formToApiForm) }),
  );
}
