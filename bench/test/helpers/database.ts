import { randomBase62 } from '../../../src/platform/lib/ids.js';
import { queryPostgres } from '../../lib.js';

/** The PostgreSQL the tests use, as the product's own suite does; the bench makes its schemas there. */
export const postgresAdminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/formgate_test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A PostgreSQL database of the calling test file's own, on the server of TEST_DATABASE_URL: what a
 * bench run makes there (its bench_… schemas) is then the file's alone to count, whatever other
 * files run meanwhile.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `formgate_b_${randomBase62(12).toLowerCase()}`;
  // template0: nobody is ever connected to it, which CREATE DATABASE requires of its template.
  await queryPostgres(postgresAdminUrl, `create database ${name} template template0`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE ends the connections a killed run's servers left open.
    drop: async () => {
      await queryPostgres(postgresAdminUrl, `drop database if exists ${name} with (force)`);
    },
  };
}
