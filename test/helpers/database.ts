import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabase, type DatabaseHandle, type DatabaseOptions, type Dialect } from '../../src/db/database.js';
import { randomBase62 } from '../../src/lib/ids.js';

export const testDialect: Dialect = process.env.FORMGATE_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export const postgresAdminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/formgate_test';

export interface TestDatabase {
  /** A DATABASE_URL for this test file's private database (a temp file, or a PostgreSQL schema). */
  url: string;
  dialect: Dialect;
  /** A new connection (pool) to it; options as for createDatabase (e.g. onQuery). */
  open(options?: DatabaseOptions): DatabaseHandle;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file. PostgreSQL gets a private schema selected through
 * search_path, so test files run in parallel without seeing each other's rows. An unreachable
 * PostgreSQL fails the test loudly.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'formgate-test-'));
    const url = `sqlite:${join(dir, 'formgate.db')}`;
    return {
      url,
      dialect: 'sqlite',
      open: (options) => createDatabase(url, options),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const separator = postgresAdminUrl.includes('?') ? '&' : '?';
  const url = `${postgresAdminUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    dialect: 'postgres',
    open: (options) => createDatabase(url, { poolSize: 10, ...options }),
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresAdminUrl });
      await client.connect();
      try {
        await client.query(`drop schema ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
