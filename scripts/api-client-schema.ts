import { writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { clientScriptOf } from '../src/features/client-script/client-script.js';
import { parseConfig } from '../src/platform/config.js';
import { createDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';

/** Where the typed management-API client keeps the types generated from /v1/openapi.json. */
export const API_CLIENT_SCHEMA_FILE = new URL('../client/src/api/schema.d.ts', import.meta.url);

const HEADER = `/**
 * Generated from Formgate's /v1/openapi.json by \`npm run generate:api-client\`; do not edit.
 * npm test fails when this file no longer matches the document.
 */

`;

/** The document as the service serves it, from an app built in memory (no server, no network). */
export async function fetchOpenApiDocument(): Promise<Record<string, unknown>> {
  // Only what the document depends on: an empty database, no Redis, a fixed public address, and
  // no browser script (its routes are not in the document), so no build is needed.
  const config = parseConfig({ LOG_LEVEL: 'silent', DATABASE_URL: 'sqlite::memory:', BASE_URL: 'https://formgate.invalid' });
  const handle = createDatabase(config.databaseUrl);
  await migrateToLatest(handle);
  const app = await buildApp({ config, handle, logger: false, closeDatabase: true, clientScript: clientScriptOf(Buffer.alloc(0)) });
  try {
    const response = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`/v1/openapi.json answered ${response.statusCode}`);
    return response.json();
  } finally {
    await app.close();
  }
}

/** The TypeScript source of the client's types (openapi-typescript's `paths`, `components`, `operations`). */
export async function generateApiClientSchema(): Promise<string> {
  const document = await fetchOpenApiDocument();
  const ast = await openapiTS(document as never, { silent: true });
  return HEADER + astToString(ast);
}

export async function writeApiClientSchema(file: URL | string = API_CLIENT_SCHEMA_FILE): Promise<void> {
  await writeFile(file, await generateApiClientSchema());
}
