import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import type { Services } from '../../src/services.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createAccount, servicesFor } from '../helpers/factories.js';

const admin = { email: 'Owner@Example.com', password: 'correct horse battery' };

describe('the admin account from ADMIN_EMAIL / ADMIN_PASSWORD', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let services: Services;

  beforeEach(async () => {
    database = await createTestDatabase();
    handle = database.open();
    services = servicesFor(handle);
  });
  afterEach(async () => {
    await handle.close();
    await database.drop();
  });

  it('makes exactly one account, the admin on the top plan, that logs in with that password', async () => {
    const created = await services.accounts.bootstrapAdmin(admin);
    expect(created).toMatchObject({ email: 'owner@example.com', planId: 'business' });
    expect((await services.accounts.findUserByEmail('owner@example.com'))!.isAdmin).toBe(true);
    expect(await services.accounts.verifyCredentials('owner@example.com', admin.password)).toMatchObject({ id: created!.id });
    expect(await services.admin.listAccounts()).toHaveLength(1);
  });

  it('makes it once: later starts, even with another address or password, change nothing', async () => {
    const first = await services.accounts.bootstrapAdmin(admin);
    expect(await services.accounts.bootstrapAdmin(admin)).toBeUndefined();
    expect(await services.accounts.bootstrapAdmin({ email: 'other@example.com', password: 'another long password' })).toBeUndefined();
    const accounts = await services.admin.listAccounts();
    expect(accounts.map((a) => a.id)).toEqual([first!.id]);
    expect(await services.accounts.verifyCredentials('owner@example.com', admin.password)).toBeDefined();
  });

  it('makes nothing when an account exists already', async () => {
    const existing = await createAccount(services, { email: 'first@example.com' });
    expect(await services.accounts.bootstrapAdmin(admin)).toBeUndefined();
    expect((await services.admin.listAccounts()).map((a) => a.id)).toEqual([existing.id]);
    expect(await services.accounts.findAccountByEmail('owner@example.com')).toBeUndefined();
  });

  it('makes one when two instances start at once', async () => {
    const other = database.open();
    try {
      const results = await Promise.all([services.accounts.bootstrapAdmin(admin), servicesFor(other).accounts.bootstrapAdmin(admin)]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      expect(await services.admin.listAccounts()).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
