import { fileURLToPath } from 'node:url';
import { API_CLIENT_SCHEMA_FILE, writeApiClientSchema } from './api-client-schema.js';

// npm run generate:api-client: rewrites client/src/api/schema.d.ts from the document.
await writeApiClientSchema();
console.log(`wrote ${fileURLToPath(API_CLIENT_SCHEMA_FILE)}`);
