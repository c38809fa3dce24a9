import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { servicesFor } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCliJson } from '../../test/helpers/server-process.js';

// DEFAULT_PLAN is neither free nor business, so each account shows where its plan came from.
const ENV = { DEFAULT_PLAN: 'pro' };

let databases: TestDatabase[] = [];
const freshDatabase = async () => {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
};
afterEach(async () => {
  await Promise.all(databases.map((d) => d.drop()));
  databases = [];
});

describe('formgate accounts create: the first account of an instance', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('without --plan, the first account gets business and the next one DEFAULT_PLAN', async () => {
    const { url } = await freshDatabase();
    const first = await runCliJson(['accounts', 'create', '--email', 'first@example.com'], { DATABASE_URL: url, ...ENV });
    expect(first.account).toMatchObject({ email: 'first@example.com', planId: 'business' });
    const second = await runCliJson(['accounts', 'create', '--email', 'second@example.com'], { DATABASE_URL: url, ...ENV });
    expect(second.account).toMatchObject({ email: 'second@example.com', planId: 'pro' });
  });

  it('an explicit --plan wins, for the first account too', async () => {
    const database = await freshDatabase();
    const first = await runCliJson(['accounts', 'create', '--email', 'first@example.com', '--plan', 'free'], { DATABASE_URL: database.url, ...ENV });
    expect(first.account).toMatchObject({ email: 'first@example.com', planId: 'free' });
    // Still the instance's admin: only its plan was chosen.
    const handle = database.open();
    try {
      expect(await servicesFor(handle).accounts.getAccountByIdOrEmail('first@example.com')).toMatchObject({ planId: 'free' });
      expect((await servicesFor(handle).accounts.findUserByEmail('first@example.com'))!.isAdmin).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
