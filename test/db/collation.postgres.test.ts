import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { postgresAdminUrl } from '../helpers/database.js';
import { useMigratedDatabase } from '../helpers/factories.js';
import { checkOrdering } from '../helpers/ordering.js';

// PostgreSQL only (the sqlite project leaves out *.postgres.test.ts): SQLite compares text
// bytewise whatever happens, PostgreSQL only where the columns say COLLATE "C".

describe('ordering columns on PostgreSQL', () => {
  let handle: DatabaseHandle;
  useMigratedDatabase((opened) => ({ handle } = opened));

  it('the ordering columns are COLLATE "C" on PostgreSQL', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string; collation_name: string | null }>`
      select table_name, column_name, collation_name from information_schema.columns
      where table_schema = current_schema() and column_name in ('id', 'created_at')
        and table_name in ('submissions', 'forms', 'hooks', 'api_keys', 'hook_deliveries')`.execute(handle.db);
    expect(rows).toHaveLength(10);
    for (const row of rows) expect([row.table_name, row.column_name, row.collation_name]).toEqual([row.table_name, row.column_name, 'C']);
  });
});

describe('on a PostgreSQL database whose default collation is ICU en-US', () => {
  const name = `fg_icu_${randomBase62(10).toLowerCase()}`;
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  let handle: DatabaseHandle | undefined;

  async function admin(statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: postgresAdminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    await admin(`create database ${name} template template0 locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`);
    handle = createDatabase(url.href, { poolSize: 2 });
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await handle?.close();
    await admin(`drop database if exists ${name}`);
  });

  it('gives the same order as SQLite', async () => {
    await checkOrdering(handle!);
  });
});
