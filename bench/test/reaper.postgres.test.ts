import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryPostgres } from '../lib.js';
import { postgresAdminUrl } from './helpers/database.js';
import { PROCESS_TEST_TIMEOUT_MS, benchScript, runToExit } from './helpers/process.js';

// The bench's reaper on its own, told by hand what a run made, as bench/reaper.ts tells it over
// its stdin; stdin closing is the run ending. (pair.test.ts kills a real run.)
// PostgreSQL only: its schemas are half of what the reaper removes, and the other half needs no
// database.
const REAPER = benchScript('reaper-process.ts');
const reap = (lines: string[], giveUpAfterMs: number) =>
  runToExit([...REAPER, 'test-token', String(giveUpAfterMs)], {}, { input: lines.map((line) => `${line}\n`).join(''), limitMs: 20_000 });

const adminQuery = (text: string, values?: unknown[]) => queryPostgres(postgresAdminUrl, text, values);

const schemaExists = async (schema: string) => (await adminQuery('select 1 from pg_namespace where nspname = $1', [schema])).length > 0;

let tmp: string;
let schema: string;
beforeEach(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'formgate-reaper-'));
  schema = `reaper_test_${process.pid}`; // not bench_…: pair.test.ts counts those
  await adminQuery(`create schema ${schema}`);
});
afterEach(async () => {
  await adminQuery(`drop schema if exists ${schema} cascade`);
  rmSync(tmp, { recursive: true, force: true });
});

describe('the bench reaper', () => {
  it('removes what is still listed when its pipe closes, and leaves what was told removed', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const left = join(tmp, 'left');
    const removed = join(tmp, 'removed');
    mkdirSync(left);
    mkdirSync(removed);
    const result = await reap([`+dir ${left}`, `+schema ${schema} ${postgresAdminUrl}`, `+dir ${removed}`, `-dir ${removed}`], 10_000);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(left)).toBe(false);
    expect(await schemaExists(schema)).toBe(false);
    // Told removed, so not the reaper's any more (in a real run, its remover already took it).
    expect(existsSync(removed)).toBe(true);
  });

  it('names what it could not remove when it gives up: a schema on a database that stopped answering', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    // A database host that stopped answering: it takes the connection and says nothing.
    const connections = new Set<Socket>();
    const silent = createServer((socket) => connections.add(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const frozen = new URL(postgresAdminUrl);
      frozen.hostname = '127.0.0.1';
      frozen.port = String((silent.address() as AddressInfo).port);
      const dir = join(tmp, 'made');
      mkdirSync(dir);
      const result = await reap([`+dir ${dir}`, `+schema ${schema} ${frozen.href}`], 1_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`bench reaper: schema ${schema} left behind: gave up after 1000 ms\n`);
      // What it could remove before the hang is gone; the schema is still there.
      expect(existsSync(dir)).toBe(false);
      expect(await schemaExists(schema)).toBe(true);
    } finally {
      for (const socket of connections) socket.destroy();
      silent.close();
    }
  });
});
