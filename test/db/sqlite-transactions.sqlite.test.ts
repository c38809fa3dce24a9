import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';

// Two connections to one file, as the server and a CLI command are. The second one is told not
// to wait for the lock at all, so that who holds it shows at once.
describe('SQLite transactions', () => {
  let dir: string;
  let first: DatabaseHandle;
  let second: DatabaseHandle;
  const count = async (db: DatabaseHandle['db']) => (await sql<{ n: number }>`select count(*) as n from t`.execute(db)).rows[0]!.n;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'formgate-trx-'));
    first = createDatabase(`sqlite:${join(dir, 'formgate.db')}`);
    second = createDatabase(`sqlite:${join(dir, 'formgate.db')}`);
    await sql`create table t (x integer)`.execute(first.db);
    await sql`pragma busy_timeout = 0`.execute(second.db);
  });
  afterEach(async () => {
    await second.close();
    await first.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a transaction holds the write lock from its begin, so one that reads before it writes still commits', async () => {
    await first.db.transaction().execute(async (trx) => {
      expect(await count(trx)).toBe(0);
      // The other connection cannot commit between this transaction's read and its write.
      await expect(sql`insert into t values (2)`.execute(second.db)).rejects.toThrow(/database is locked/);
      await sql`insert into t values (1)`.execute(trx);
    });
    await sql`insert into t values (2)`.execute(second.db);
    expect(await count(second.db)).toBe(2);
  });

  it('a read-only transaction takes no lock: others write meanwhile, and it keeps reading its snapshot', async () => {
    await first.db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        expect(await count(trx)).toBe(0);
        await sql`insert into t values (2)`.execute(second.db);
        expect(await count(trx)).toBe(0);
      });
    expect(await count(first.db)).toBe(1);
  });
});
