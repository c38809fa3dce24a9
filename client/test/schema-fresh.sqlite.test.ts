import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_CLIENT_SCHEMA_FILE, writeApiClientSchema } from '../../scripts/api-client-schema.js';

// The document comes from the app built over an in-memory SQLite database: this needs better-sqlite3,
// which the specs never load, and no particular database, so it runs once, in the SQLite project.
describe('client/src/api/schema.d.ts', () => {
  it('is what `npm run generate:api-client` makes of the current /v1/openapi.json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'formgate-api-client-'));
    try {
      const fresh = join(dir, 'schema.d.ts');
      await writeApiClientSchema(fresh);
      const committed = await readFile(API_CLIENT_SCHEMA_FILE, 'utf8');
      // A mismatch means the routes' schemas changed: run npm run generate:api-client and commit.
      expect(committed === (await readFile(fresh, 'utf8')), 'schema.d.ts is stale: run npm run generate:api-client').toBe(true);
      expect(committed).toContain('listFormSubmissions: {');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
