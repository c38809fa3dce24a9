import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/platform/db/database.js';
import { START_AFTER_CHANGES } from '../../src/platform/db/sqlite-checkpointer.js';
import { insertSubmissionRows } from '../../src/features/submit/submission.repository.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createOwner, newSubmissionRow, servicesFor } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';

// SQLite only, whichever database the rest of the suite runs on: this is about the file engine.
describe('SQLite background checkpoints', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function tempPath(): string {
    const dir = mkdtempSync(join(tmpdir(), 'formgate-ckpt-'));
    dirs.push(dir);
    return join(dir, 'formgate.db');
  }

  const totalChanges = async (handle: ReturnType<typeof createDatabase>) =>
    (await sql<{ n: number }>`select total_changes() as n`.execute(handle.db)).rows[0]!.n;

  const autocheckpoint = async (handle: ReturnType<typeof createDatabase>) =>
    (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(handle.db)).rows[0]!.wal_autocheckpoint;

  it('a worker, started once the server writes more than its start-up, copies the WAL into the database file while the server connection only writes', async () => {
    const path = tempPath();
    const handle = createDatabase(`sqlite:${path}`, { checkpointInBackground: true });
    try {
      // Idle: no worker yet, SQLite checkpoints by itself (its default threshold).
      expect(await autocheckpoint(handle)).toBe(1000);
      await migrateToLatest(handle);
      // Migrating a new database is start-up work: too few writes to start the worker.
      expect(await totalChanges(handle)).toBeLessThanOrEqual(START_AFTER_CHANGES);
      const sizeBefore = statSync(path).size;
      // About 2 MB of rows: far below the connection's own checkpoint threshold of ~40 MB.
      const payload = JSON.stringify({ text: 'x'.repeat(2000) });
      const { form } = await createOwner(servicesFor(handle));
      const rows = Array.from({ length: 1000 }, () => newSubmissionRow(form.id, { payload }));
      await handle.db.transaction().execute((trx) => insertSubmissionRows(trx, rows));
      // The worker takes over and the connection's own threshold is raised.
      await waitFor(async () => (await autocheckpoint(handle)) === 10_000, 10_000, 'the worker to start after the writes');
      await waitFor(() => statSync(path).size > sizeBefore + 1_500_000, 10_000, 'the checkpoint to reach the database file');
    } finally {
      await handle.close();
    }
    // The worker closed first, so the server's connection was the last: it removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('is off unless asked for: the CLI and tests keep SQLite checkpointing by itself', async () => {
    const handle = createDatabase(`sqlite:${tempPath()}`);
    try {
      await migrateToLatest(handle);
      expect(await autocheckpoint(handle)).toBe(1000);
    } finally {
      await handle.close();
    }
  });
});
