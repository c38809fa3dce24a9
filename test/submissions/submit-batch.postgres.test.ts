import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { OutboxDispatcher } from '../../src/features/outbox/outbox.dispatcher.js';
import { insertSubmissionRows } from '../../src/features/submit/submission.repository.js';
import { SubmissionWriter, batchStoreFor } from '../../src/features/submit/submission.writer.js';
import { createOwner, newSubmissionRow, useMigratedDatabase, type MigratedDatabase } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';

// PostgreSQL only (the sqlite project leaves out *.postgres.test.ts): the submit statement locks
// each form of a batch instead of a foreign key checking every row, and counts into the shard of
// its writer slot (migration 0015). SQLite keeps its foreign key and one counter shard.

describe("PostgreSQL's submit statement", () => {
  let opened: MigratedDatabase;
  useMigratedDatabase((db) => (opened = db));
  const store = () => batchStoreFor(opened.handle, () => '1970-01-01T00:00:00.000Z', new OutboxDispatcher(opened.handle, pino({ level: 'silent' }), []).queue);
  const storedIds = async (handle: DatabaseHandle, ids: string[]) =>
    (await handle.db.selectFrom('submissions').select('id').where('id', 'in', ids).execute()).map((r) => r.id);
  /**
   * Whether a submit statement waits for a lock, in this file's database (other files run the
   * same statements on the cluster). Asked on the pool, outside any test transaction (inside one,
   * pg_stat_activity is read once and kept); it keeps a statement's first kilobyte, where
   * locked_forms is named.
   */
  const submitStatementWaits = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like '%locked_forms%'`.execute(opened.handle.db)).rows[0]!.n >= 1;
  /** A connection of its own, for a transaction the test holds open beside the statement. */
  const withOtherConnection = async (use: (client: pg.Client) => Promise<void>) => {
    const client = new pg.Client({ connectionString: opened.database.url });
    await client.connect();
    try {
      await use(client);
    } finally {
      await client.end();
    }
  };
  /** Counter rows of every shard, so that a statement's upserts update rows a test transaction can hold. */
  const counterRowsOfEveryShard = async (formId: string, hour: string) => {
    for (let shard = 0; shard < 8; shard++) {
      await sql`insert into form_hourly_counts (form_id, hour, shard, inbox, spam) values (${formId}, ${hour}, ${shard}, 0, 0)`.execute(opened.handle.db);
      await sql`insert into form_counts (form_id, shard, inbox, spam) values (${formId}, ${shard}, 0, 0)`.execute(opened.handle.db);
    }
  };

  it('stores nothing for a form that is gone and says so; the rest of the batch is stored and counted', async () => {
    const { form } = await createOwner(opened.services);
    const kept = newSubmissionRow(form.id);
    const orphan = newSubmissionRow('frm_never_existed');
    const claim = { formId: 'frm_never_existed', key: 'orphan-key', submissionId: orphan.id, result: '{}', createdAt: orphan.created_at };
    const repeat = newSubmissionRow('frm_never_existed'); // the same key again: not sent, and its form is gone too
    const { results } = await store()(
      [{ row: kept, queueOutbound: true }, { row: orphan, queueOutbound: true, idempotency: claim }, { row: repeat, queueOutbound: true, idempotency: { ...claim, submissionId: repeat.id } }],
      0,
    );
    expect(results).toEqual([{ stored: true }, { stored: false, reason: 'form_missing' }, { stored: false, reason: 'form_missing' }]);
    expect(await storedIds(opened.handle, [kept.id, orphan.id])).toEqual([kept.id]);
    expect(await opened.handle.db.selectFrom('idempotency_keys').select('form_id').where('idempotency_key', '=', 'orphan-key').execute()).toEqual([]);
    expect(await opened.handle.db.selectFrom('form_counts').select('form_id').where('form_id', '=', 'frm_never_existed').execute()).toEqual([]);
  });

  it('batches in different slots count into different shards, and the sum is what was stored', async () => {
    const { form } = await createOwner(opened.services);
    const writerStore = store(); // one writer's store: its slots map to distinct shards
    await writerStore([{ row: newSubmissionRow(form.id), queueOutbound: true }, { row: newSubmissionRow(form.id), queueOutbound: true }], 0);
    await writerStore([{ row: newSubmissionRow(form.id, { is_spam: 1 }), queueOutbound: false }], 1);
    const rows = await opened.handle.db.selectFrom('form_counts').select(['shard', 'inbox', 'spam']).where('form_id', '=', form.id).orderBy('inbox', 'desc').execute();
    expect(rows.map((r) => [Number(r.inbox), Number(r.spam)])).toEqual([[2, 0], [0, 1]]);
    expect(rows[0]!.shard).not.toBe(rows[1]!.shard);
    expect(rows.every((r) => r.shard >= 0 && r.shard < 8)).toBe(true);
  });

  it("waits for a form's deletion in progress, then stores nothing for it: no submission outlives its form", async () => {
    const { form } = await createOwner(opened.services);
    await withOtherConnection(async (deleting) => {
      await deleting.query('begin');
      await deleting.query('delete from forms where id = $1', [form.id]);
      const row = newSubmissionRow(form.id);
      const written = store()([{ row, queueOutbound: true }], 0);
      // The statement waits on the form's row lock until the deletion ends.
      await waitFor(submitStatementWaits, 5000, 'the submit statement to wait for the form lock');
      await deleting.query('commit');
      expect((await written).results).toEqual([{ stored: false, reason: 'form_missing' }]);
      expect(await storedIds(opened.handle, [row.id])).toEqual([]);
    });
  });

  it('locks the hourly counter row before the form total, as a deletion does: the two never deadlock', async () => {
    const { form } = await createOwner(opened.services);
    const row = newSubmissionRow(form.id);
    const hour = row.created_at.slice(0, 13);
    await counterRowsOfEveryShard(form.id, hour);
    await withOtherConnection(async (deleting) => {
      // A deletion's trigger halfway: the hourly rows updated, the form's total not yet.
      await deleting.query('begin');
      await deleting.query('update form_hourly_counts set inbox = inbox where form_id = $1 and hour = $2', [form.id, hour]);
      const written = store()([{ row, queueOutbound: false }], 0);
      await waitFor(submitStatementWaits, 5000, 'the submit statement to wait for the hourly counter row');
      // Taken the other way round, the statement would hold this row now and PostgreSQL would end one of the two.
      await deleting.query("set local lock_timeout = '5s'");
      await deleting.query('update form_counts set inbox = inbox where form_id = $1', [form.id]);
      await deleting.query('commit');
      expect((await written).results).toEqual([{ stored: true }]);
      expect(await storedIds(opened.handle, [row.id])).toEqual([row.id]);
    });
  });

  /**
   * Stages the counters' deadlock against work that takes an hourly counter row and then waits
   * for the form's totals (a submit statement, a deletion's trigger): another transaction holds
   * the totals, and once the work waits, asks for the hourly table. PostgreSQL checks a wait for
   * a deadlock once, deadlock_timeout (1 s) after it begins, and ends the backend whose check finds
   * the cycle. The work waits first, so it loses when the other transaction closes the cycle within
   * that second; on a loaded machine the other may come later, find the cycle itself and lose
   * instead (the work then goes through on its first try). So this tries again, with new work,
   * until the work has lost once, and returns what every try's work answered. `readyWork` makes a
   * try's work ready (its rows stored, before the totals are held) and returns how to start it.
   */
  const untilTheWorkLosesTheDeadlock = async <T>(formId: string, workWaits: () => Promise<boolean>, readyWork: () => Promise<() => Promise<T>>): Promise<T[]> => {
    const answers: T[] = [];
    for (let tries = 1; ; tries++) {
      expect(tries, 'the work never lost the deadlock').toBeLessThanOrEqual(5);
      let workLost = false;
      const startWork = await readyWork();
      await withOtherConnection(async (other) => {
        await other.query('begin');
        await other.query('update form_counts set inbox = inbox where form_id = $1', [formId]);
        const work = startWork();
        await waitFor(workWaits, 5000, 'the work to hold its hourly row and wait for the totals');
        try {
          // A table lock is granted in queue order, so the work's second try waits behind it (a
          // row lock would be a race between the two).
          await other.query('lock table form_hourly_counts in exclusive mode');
          workLost = true;
          await waitFor(workWaits, 5000, 'the second try to wait');
          await other.query('commit');
        } catch (err) {
          if ((err as { code?: string }).code !== '40P01') throw err;
          await other.query('rollback');
        }
        answers.push(await work);
      });
      if (workLost) return answers;
    }
  };
  const countedInbox = async (formId: string) =>
    (await sql<{ n: number }>`select sum(inbox)::int as n from form_counts where form_id = ${formId}`.execute(opened.handle.db)).rows[0]!.n;

  it('a lone submission whose statement lost a deadlock is written once more by the writer, and stored', async () => {
    const { form } = await createOwner(opened.services);
    await counterRowsOfEveryShard(form.id, newSubmissionRow(form.id).created_at.slice(0, 13));
    const outbox = new OutboxDispatcher(opened.handle, pino({ level: 'silent' }), []).queue;
    const writer = new SubmissionWriter(batchStoreFor(opened.handle, () => '1970-01-01T00:00:00.000Z', outbox), outbox);
    const tried: string[] = [];
    try {
      const answers = await untilTheWorkLosesTheDeadlock(form.id, submitStatementWaits, async () => {
        const row = newSubmissionRow(form.id);
        tried.push(row.id);
        return () => writer.write({ row, queueOutbound: false });
      });
      expect(answers.every((a) => a.stored)).toBe(true);
      expect((await storedIds(opened.handle, tried)).sort()).toEqual([...tried].sort());
      expect(await countedInbox(form.id)).toBe(tried.length);
    } finally {
      await writer.drain();
    }
  });

  it("a deletion that lost a deadlock over the form's counters runs once more, and deletes", async () => {
    const { account, form } = await createOwner(opened.services);
    const hour = newSubmissionRow(form.id).created_at.slice(0, 13);
    await counterRowsOfEveryShard(form.id, hour);
    const deletionWaits = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like 'delete from "submissions"%'`.execute(opened.handle.db)).rows[0]!.n >= 1;
    const kept = newSubmissionRow(form.id);
    await opened.handle.db.transaction().execute((trx) => insertSubmissionRows(trx, [kept]));
    const tried: string[] = [];
    const answers = await untilTheWorkLosesTheDeadlock(form.id, deletionWaits, async () => {
      const row = newSubmissionRow(form.id);
      await opened.handle.db.transaction().execute((trx) => insertSubmissionRows(trx, [row]));
      tried.push(row.id);
      return () => opened.services.lifecycle.deleteSubmissions(account.id, form.id, [row.id]);
    });
    expect(answers).toEqual(tried.map(() => 1));
    expect(await storedIds(opened.handle, [kept.id, ...tried])).toEqual([kept.id]);
    expect(await countedInbox(form.id)).toBe(1);
  });

  it("a spam mark that lost a deadlock over the form's counters runs once more, and marks", async () => {
    const { account, form } = await createOwner(opened.services);
    await counterRowsOfEveryShard(form.id, newSubmissionRow(form.id).created_at.slice(0, 13));
    const markWaits = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like 'update "submissions"%'`.execute(opened.handle.db)).rows[0]!.n >= 1;
    const tried: string[] = [];
    const answers = await untilTheWorkLosesTheDeadlock(form.id, markWaits, async () => {
      const row = newSubmissionRow(form.id);
      await opened.handle.db.transaction().execute((trx) => insertSubmissionRows(trx, [row]));
      tried.push(row.id);
      return () => opened.services.triage.markSubmissions([row.id], true, account.id);
    });
    expect(answers).toEqual(tried.map((id) => ({ marked: [id], released: [] })));
    const spam = await opened.handle.db.selectFrom('submissions').select('id').where('form_id', '=', form.id).where('is_spam', '=', 1).execute();
    expect(spam.map((r) => r.id).sort()).toEqual([...tried].sort());
    const counted = await sql<{ inbox: number; spam: number }>`select sum(inbox)::int as inbox, sum(spam)::int as spam
      from form_counts where form_id = ${form.id}`.execute(opened.handle.db);
    expect(counted.rows[0]).toEqual({ inbox: 0, spam: tried.length });
  });

  it("a form's deletion takes its submissions, as the foreign key's cascade did", async () => {
    const { form } = await createOwner(opened.services);
    const other = await createOwner(opened.services);
    const rows = [newSubmissionRow(form.id), newSubmissionRow(form.id), newSubmissionRow(other.form.id)];
    await store()(rows.map((row) => ({ row, queueOutbound: false })), 0);
    await opened.handle.db.deleteFrom('forms').where('id', '=', form.id).execute();
    expect(await storedIds(opened.handle, rows.map((r) => r.id))).toEqual([rows[2]!.id]);
  });
});
