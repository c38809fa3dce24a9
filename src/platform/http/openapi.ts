import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorBodySchema } from '../errors.js';
import { VERSION } from '../version.js';

/** Collects every route's schema into an OpenAPI 3.1 document served at /v1/openapi.json. */
export const openApiPlugin = fp(async (app: FastifyInstance) => {
  app.addSchema(errorBodySchema);
  await app.register(swagger, {
    // Shared schemas keep their $id as their component name (ErrorBody, not def-0): generated
    // clients name their types after it.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Formgate',
        version: VERSION,
        description: 'Form submission and management service.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // The operator's public address (BASE_URL), as every link the service builds.
      servers: [{ url: app.config.baseUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (fgk_…)' } },
      },
    },
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
