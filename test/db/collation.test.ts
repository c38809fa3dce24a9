import { afterAll, beforeAll, describe, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { checkOrdering } from '../helpers/ordering.js';

describe('ordering is bytewise on both databases', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = database.open();
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('ties in one millisecond and IDs differing only in case or punctuation come back in byte order', async () => {
    await checkOrdering(handle);
  });
});

