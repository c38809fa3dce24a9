import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePostgres } from '../series.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// The soak's PostgreSQL sampler (bench/series.ts) against this project's PostgreSQL: it reads the
// WAL position, the checkpointer and autovacuum once a second until stopped.
let database: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('create table filler (body text)');
});
afterAll(async () => {
  await client?.end();
  await database?.drop();
});

describe('the soak PostgreSQL sampler', () => {
  it('reads when started and when stopped, and the WAL between holds what was written', async () => {
    const sampler = await samplePostgres(database.url);
    // 2,000 rows of 1 kB each: at least 2 MB of WAL.
    await client.query(`insert into filler select repeat('x', 1024) from generate_series(1, 2000)`);
    const samples = await sampler.stop();
    expect(samples.length).toBeGreaterThanOrEqual(2);
    const [first, last] = [samples[0]!, samples.at(-1)!];
    expect(last.at).toBeGreaterThan(first.at);
    expect(last.walBytes - first.walBytes).toBeGreaterThanOrEqual(2000 * 1024);
    for (const sample of samples) {
      expect(typeof sample.checkpointing).toBe('boolean');
      expect(Array.isArray(sample.autovacuum)).toBe(true);
    }
  });

  it('fails when stopped if PostgreSQL ended its connection, rather than ending the bench meanwhile', async () => {
    const sampler = await samplePostgres(database.url);
    const { rowCount } = await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    expect(rowCount).toBe(1);
    await expect(sampler.stop()).rejects.toThrow();
  });
});
