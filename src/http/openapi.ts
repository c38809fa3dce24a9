import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorBodySchema } from '../errors.js';
import { VERSION } from '../version.js';

/** Collects every route's schema into an OpenAPI 3.1 document served at /v1/openapi.json. */
export const openApiPlugin = fp(async (app: FastifyInstance) => {
  app.addSchema(errorBodySchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Formgate', version: VERSION, description: 'Form submission and management service.' },
      servers: [{ url: app.config.baseUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (fgk_…)' } },
      },
    },
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
