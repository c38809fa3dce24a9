import type { FastifyInstance } from 'fastify';
import { configFileJsonSchema } from './config-file.schema.js';

export const CONFIG_SCHEMA_PATH = '/v1/config.schema.json';

/** The configuration file's JSON Schema, public: an editor fetches it to complete and check the file. */
export async function configSchemaRoutes(app: FastifyInstance): Promise<void> {
  const schema = JSON.stringify(configFileJsonSchema(`${app.config.baseUrl}${CONFIG_SCHEMA_PATH}`));
  app.get(CONFIG_SCHEMA_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'application/schema+json; charset=utf-8').header('cache-control', 'public, max-age=3600').header('access-control-allow-origin', '*').send(schema),
  );
}
