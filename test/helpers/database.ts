import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase, type DatabaseHandle, type DatabaseOptions, type Dialect } from '../../src/platform/db/database.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';

export const testDialect: Dialect = process.env.FORMGATE_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/**
 * The PostgreSQL server of this run (the suite's own cluster, or TEST_DATABASE_URL's), as a URL
 * of its maintenance database: test files create their databases through it.
 */
export const postgresAdminUrl = inject('postgresAdminUrl');

export interface TestDatabase {
  /** A DATABASE_URL for this test file's private database (a temp file, or a PostgreSQL database). */
  url: string;
  dialect: Dialect;
  /** A new connection (pool) to it; options as for createDatabase (e.g. onQuery). */
  open(options?: DatabaseOptions): DatabaseHandle;
  drop(): Promise<void>;
}

/**
 * A private database for one test file: migrated to the latest schema (a copy of the template
 * that the global setup migrated once), or `empty` for tests that run migrations themselves.
 * PostgreSQL gets a database of its own, so test files run in parallel without seeing each
 * other's rows, locks or notifications (advisory locks and LISTEN channels are per database).
 * An unreachable PostgreSQL fails the test loudly. `dialect` chooses the other database than the
 * project's (tests that copy from one to the other).
 */
export async function createTestDatabase(options: { empty?: boolean; dialect?: Dialect } = {}): Promise<TestDatabase> {
  if ((options.dialect ?? testDialect) === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'formgate-test-'));
    const file = join(dir, 'formgate.db');
    if (!options.empty) copyFileSync(inject('sqliteTemplateFile'), file);
    const url = `sqlite:${file}`;
    return {
      url,
      dialect: 'sqlite',
      open: (openOptions) => createDatabase(url, openOptions),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `formgate_t_${randomBase62(12).toLowerCase()}`;
  // template0 for an empty one: nobody is ever connected to it, which CREATE DATABASE requires.
  const template = options.empty ? 'template0' : inject('postgresTemplateDatabase');
  await adminQuery(`create database ${name} template ${template}`);
  const target = new URL(postgresAdminUrl);
  target.pathname = `/${name}`;
  const url = target.toString();
  return {
    url,
    dialect: 'postgres',
    open: (openOptions) => createDatabase(url, { poolSize: 10, ...openOptions }),
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

/**
 * An empty database (no migration run) for the calling file's tests, made and opened before them
 * and dropped after: the migration tests start from it.
 */
export function emptyDatabaseForFile(): { readonly handle: DatabaseHandle; readonly database: TestDatabase } {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
    handle = database.open();
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });
  return {
    get handle() {
      if (!handle) throw new Error('the database is opened before the tests');
      return handle;
    },
    get database() {
      if (!database) throw new Error('the database is made before the tests');
      return database;
    },
  };
}
