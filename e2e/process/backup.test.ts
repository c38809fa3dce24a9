import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createOwner, servicesFor } from '../../test/helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { runCli, runCliJson, spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';
import { waitFor } from '../../test/helpers/wait.js';
import { steadyLoad } from '../reliability/load.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let dir: string;
let formId: string;
let server: ServerProcess | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  ({ form: { id: formId } } = await createOwner(servicesFor(handle)));
  dir = mkdtempSync(join(tmpdir(), 'formgate-backup-'));
});
afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await handle?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`formgate backup on ${testDialect}`, { timeout: 120_000 }, () => {
  it(
    testDialect === 'sqlite'
      ? 'copies the database while a submit load runs: a valid database holding every row committed before it began'
      : 'exits non-zero, naming pg_dump',
    async () => {
      const file = join(dir, 'formgate-backup.db');
      if (testDialect === 'postgres') {
        const result = await runCli(['backup', file, '--json'], { DATABASE_URL: database.url });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toMatch(/^error: .*use pg_dump/);
        expect(existsSync(file)).toBe(false);
        return;
      }

      server = await spawnServer({ DATABASE_URL: database.url, SUBMIT_RATE_LIMIT_PER_MINUTE: '0' });
      const load = steadyLoad(server.url, formId, 8);
      let committedBefore: string[] = [];
      try {
        await waitFor(() => load.answered() >= 300, 60_000, '300 answered submits');
        // Answered with 200 means committed: every one of these must be in the copy.
        committedBefore = load.outcomes.filter((o) => o.outcome === 200).map((o) => o.submissionId!);
        const answeredAtStart = load.answered();
        const backup = await runCliJson(['backup', file], { DATABASE_URL: database.url });
        const answeredAtEnd = load.answered();
        expect(backup).toEqual({ backup: file, bytes: statSync(file).size });
        // The server kept taking submissions while the copy was made.
        expect(answeredAtEnd).toBeGreaterThan(answeredAtStart);
        await waitFor(() => load.answered() >= answeredAtEnd + 50, 60_000, 'more submits after the backup');
      } finally {
        await load.stop();
      }
      expect(load.outcomes.every((o) => o.outcome === 200)).toBe(true);

      const copy = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(copy.pragma('foreign_key_check')).toEqual([]);
        const inCopy = new Set((copy.prepare('select id from submissions where form_id = ?').all(formId) as Array<{ id: string }>).map((r) => r.id));
        const answered = load.outcomes.map((o) => o.submissionId!);
        // Every row committed before the backup began …
        expect(committedBefore.length).toBeGreaterThanOrEqual(300);
        for (const id of committedBefore) expect(inCopy.has(id)).toBe(true);
        // … and nothing that was never answered: the copy is a state the database really had.
        const answeredIds = new Set(answered);
        for (const id of inCopy) expect(answeredIds.has(id)).toBe(true);
        expect(inCopy.size).toBeLessThan(answered.length);
        // The migrations' bookkeeping came along: the copy is a usable Formgate database.
        expect((copy.prepare('select count(*) as n from kysely_migration').get() as { n: number }).n).toBeGreaterThan(0);
      } finally {
        copy.close();
      }
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    },
  );
});
