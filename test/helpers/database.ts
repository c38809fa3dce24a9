import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabase, type DatabaseHandle, type DatabaseOptions, type Dialect } from '../../src/db/database.js';
import { randomBase62 } from '../../src/lib/ids.js';

export const testDialect: Dialect = process.env.FORMGATE_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export const postgresAdminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/formgate_test';

export interface TestDatabase {
  /** A DATABASE_URL for this test file's private database (a temp file, or a PostgreSQL database). */
  url: string;
  dialect: Dialect;
  /** A new connection (pool) to it; options as for createDatabase (e.g. onQuery). */
  open(options?: DatabaseOptions): DatabaseHandle;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file. PostgreSQL gets a database of its own on the server
 * of TEST_DATABASE_URL, so test files run in parallel without seeing each other's rows, locks or
 * notifications. A schema each in one database was not enough apart: the migrator's catalog
 * query names every schema of the database, and failed with "schema … does not exist" when
 * another file dropped its own meanwhile; advisory locks and LISTEN channels are per database
 * too. An unreachable PostgreSQL fails the test loudly.
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
  const name = `formgate_t_${randomBase62(12).toLowerCase()}`;
  // template0: nobody is ever connected to it, which CREATE DATABASE requires of its template.
  await adminQuery(`create database ${name} template template0`);
  const target = new URL(postgresAdminUrl);
  target.pathname = `/${name}`;
  const url = target.toString();
  return {
    url,
    dialect: 'postgres',
    open: (options) => createDatabase(url, { poolSize: 10, ...options }),
    // FORCE ends connections a test left open (a server process it killed, a pool not closed).
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}

async function adminQuery(text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}
