import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Trx } from '../../src/platform/db/database.js';
import { createMigrator } from '../../src/platform/db/migrate.js';
import { deleteSubmissionRowsByIds } from '../../src/features/retention/retention.repository.js';
import { insertSubmissionRows } from '../../src/features/submit/submission.repository.js';
import { markSubmissionRowsSpam } from '../../src/features/inbox/triage.repository.js';
import { createOwner, newSubmissionRow, useMigratedDatabase, type MigratedDatabase } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';

// PostgreSQL only (migration 0018 does nothing on SQLite, which has one writer at a time).

let opened: MigratedDatabase;
useMigratedDatabase((db) => (opened = db));

const HOURS = ['2026-11-27T08', '2026-11-27T09'];

/**
 * A deletion or a spam mark of two rows an hour apart, while another transaction plays a submit
 * statement's part: it holds one hour's counter rows, and once the work waits, updates the form's
 * totals. Returns whether PostgreSQL found a deadlock (either side rolled back with 40P01). The
 * work runs through its repository in a transaction of the test's, with no retry around it.
 */
async function deadlocksWithABatch(formId: string, heldHour: string, work: (trx: Trx, ids: string[]) => Promise<unknown>, statement: string): Promise<boolean> {
  const rows = HOURS.map((hour) => newSubmissionRow(formId, { created_at: `${hour}:30:00.000Z` }));
  await opened.handle.db.transaction().execute((trx) => insertSubmissionRows(trx, rows));
  const other = new pg.Client({ connectionString: opened.database.url });
  await other.connect();
  const isDeadlock = (err: unknown) => (err as { code?: string }).code === '40P01';
  try {
    await other.query('begin');
    await other.query('update form_hourly_counts set inbox = inbox where form_id = $1 and hour = $2', [formId, heldHour]);
    const done = opened.handle.db.transaction().execute((trx) => work(trx, rows.map((r) => r.id))).then(
      () => false,
      (err: unknown) => {
        if (isDeadlock(err)) return true;
        throw err;
      },
    );
    // This database's backends only: other test files run the same statements on the cluster.
    const workWaits = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like ${`${statement}%`}`.execute(opened.handle.db)).rows[0]!.n >= 1;
    await waitFor(workWaits, 5000, 'the work to wait for the held hour');
    let otherLost = false;
    try {
      await other.query("set local lock_timeout = '10s'");
      await other.query('update form_counts set inbox = inbox where form_id = $1', [formId]);
      await other.query('commit');
    } catch (err) {
      if (!isDeadlock(err)) throw err;
      otherLost = true;
      await other.query('rollback');
    }
    const workLost = await done;
    return otherLost || workLost;
  } finally {
    await other.end();
  }
}

const deletion = (trx: Trx, ids: string[]) => deleteSubmissionRowsByIds(trx, ids);
const mark = (trx: Trx, ids: string[]) => markSubmissionRowsSpam(trx, ids);

describe("migration 0018 (the delete and spam-change triggers take every hour's counter row before the totals; PostgreSQL)", () => {
  it('a deletion or a mark spanning two hours never deadlocks with a batch holding either hour; down brings the deadlock back', async () => {
    const { form } = await createOwner(opened.services);
    const outcomes = async () => {
      const found: boolean[] = [];
      for (const hour of HOURS) {
        found.push(await deadlocksWithABatch(form.id, hour, deletion, 'delete from "submissions"'));
        found.push(await deadlocksWithABatch(form.id, hour, mark, 'update "submissions"'));
      }
      return found;
    };
    expect(await outcomes()).toEqual([false, false, false, false]);

    // Migration 0013's functions took each hour's row and then the total: whichever hour their
    // loop reached second, a batch holding it closes the cycle.
    expect((await (await createMigrator(opened.handle)).migrateTo('0017_sqlite_search_merges_in_steps')).error).toBeUndefined();
    const before = await outcomes();
    expect(before.filter((deadlocked, i) => deadlocked && i % 2 === 0).length).toBe(1);
    expect(before.filter((deadlocked, i) => deadlocked && i % 2 === 1).length).toBe(1);

    expect((await (await createMigrator(opened.handle)).migrateToLatest()).error).toBeUndefined();
    expect(await outcomes()).toEqual([false, false, false, false]);
    const counted = await sql<{ inbox: number; spam: number }>`select sum(inbox)::int as inbox, sum(spam)::int as spam
      from form_counts where form_id = ${form.id}`.execute(opened.handle.db);
    const stored = await sql<{ inbox: number; spam: number }>`select count(*) filter (where is_spam = 0)::int as inbox,
      count(*) filter (where is_spam = 1)::int as spam from submissions where form_id = ${form.id}`.execute(opened.handle.db);
    expect(counted.rows[0]).toEqual(stored.rows[0]);
  });
});
