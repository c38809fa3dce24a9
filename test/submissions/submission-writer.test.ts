import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import type { NewSubmissionRow } from '../../src/platform/db/schema.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import pino from 'pino';
import { DeliverySender, HookDeliveryChannel } from '../../src/features/hooks/delivery.channel.js';
import { OutboxDispatcher } from '../../src/features/outbox/outbox.dispatcher.js';
import { SubmissionWriter, batchStoreFor, type BatchStore } from '../../src/features/submit/submission.writer.js';
import type { OutboxQueue } from '../../src/features/outbox/outbox.types.js';
import { createOwner, newSubmissionRow, servicesFor } from '../helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.js';
import { waitFor } from '../helpers/wait.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let hookedFormId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  const services = servicesFor(handle);
  const { account, form } = await createOwner(services);
  hookedFormId = form.id;
  const logger = pino({ level: 'silent' });
  // The hook channel decides which forms have work; the dispatcher is never started.
  outbox = new OutboxDispatcher(handle, logger, [new HookDeliveryChannel(handle, logger, new DeliverySender(1000, false))]).queue;
  // A hook row makes every transaction queue work, where the test holds it open.
  await handle.db
    .insertInto('hooks')
    .values({ id: 'hook_writer_test', account_id: account.id, form_id: hookedFormId, target_url: 'https://example.com/hook', secret: 'whsec_test', created_at: '2000-01-01T00:00:00.000Z' })
    .execute();
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

const noCutoff = () => '1970-01-01T00:00:00.000Z';
// The real dispatcher, never started: only its queueing is used here.
let outbox: OutboxQueue;
/** The store the server uses on this database. */
const store = () => batchStoreFor(handle, noCutoff, outbox);

/** The database's store, holding each batch until released and counting how many are open. */
function gatedStore() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const state = { open: 0, peak: 0, entered: 0, slots: [] as number[] };
  const inner = store();
  const gated: BatchStore = async (batch, slot) => {
    state.entered++;
    state.open++;
    state.peak = Math.max(state.peak, state.open);
    state.slots.push(slot);
    await gate;
    state.open--;
    return inner(batch, slot);
  };
  return { gated, state, release };
}

const storedCount = async (ids: string[]) =>
  (await handle.db.selectFrom('submissions').select('id').where('id', 'in', ids).execute()).length;

/** Writes new submissions of the hooked form through `writer`, keeping their rows. */
function submissionsThrough(writer: SubmissionWriter, queueOutbound: boolean) {
  const rows: NewSubmissionRow[] = [];
  const write = () => {
    const row = newSubmissionRow(hookedFormId);
    rows.push(row);
    return writer.write({ row, queueOutbound });
  };
  return { rows, write };
}

// How the writer batches, retries and answers is specified with a fake store in
// test/submissions/submission-writer.spec.ts; here it runs over the stores of each database.
describe(`submission writer on ${testDialect}`, () => {
  // SQLite has one connection: one transaction at a time. PostgreSQL may run several.
  const concurrency = testDialect === 'postgres' ? 2 : 1;

  it(`runs at most ${concurrency} transaction(s) at once, and drain waits for all of them`, async () => {
    const { gated, state, release } = gatedStore();
    const writer = new SubmissionWriter(gated, outbox, { maxConcurrentBatches: concurrency });
    const { rows, write } = submissionsThrough(writer, true);

    const writes = [write()];
    await waitFor(() => state.entered === 1, 5000, 'the first batch to open its transaction');
    writes.push(write(), write());
    if (concurrency > 1) await waitFor(() => state.entered === 2, 5000, 'a second batch beside the first');
    writes.push(write());
    let drained = false;
    const drain = writer.drain().then(() => (drained = true));
    // Nothing more may start while the slots are full, and nothing is answered before its commit.
    // (Two turns of the event loop: the writer starts batches in the check phase.)
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(state.entered).toBe(concurrency);
    expect(drained).toBe(false);

    release();
    expect(await Promise.all(writes)).toEqual(rows.map(() => ({ stored: true })));
    await drain;
    expect(state.peak).toBe(concurrency);
    // Batches in flight together hold different slots (PostgreSQL's counter shards); freed slots are reused.
    expect(new Set(state.slots.slice(0, concurrency)).size).toBe(concurrency);
    expect(state.slots.length).toBeGreaterThan(concurrency);
    expect(state.slots.every((slot) => slot >= 0 && slot < concurrency)).toBe(true);
    expect(await storedCount(rows.map((r) => r.id))).toBe(rows.length);
    const outboxRows = await handle.db.selectFrom('outbox').select('submission_id').where('submission_id', 'in', rows.map((r) => r.id)).execute();
    expect(outboxRows).toHaveLength(rows.length);
  });

  it('retries a failed batch one write at a time, so one bad row fails only its own request', async () => {
    const writer = new SubmissionWriter(store(), outbox, { maxConcurrentBatches: concurrency });
    const good = [newSubmissionRow(hookedFormId), newSubmissionRow(hookedFormId)];
    const bad = newSubmissionRow(hookedFormId, { status: null as unknown as string }); // NOT NULL refuses it
    const results = await Promise.allSettled([writer.write({ row: good[0]!, queueOutbound: false }), writer.write({ row: bad, queueOutbound: false }), writer.write({ row: good[1]!, queueOutbound: false })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await storedCount(good.map((r) => r.id))).toBe(2);
    expect(await storedCount([bad.id])).toBe(0);
    await writer.drain();
  });

  describe('the batch store', () => {
    const keyed = (formId: string, key: string, createdAt = new Date().toISOString()) => {
      const row = newSubmissionRow(formId);
      return { row, queueOutbound: false, idempotency: { formId, key, submissionId: row.id, result: JSON.stringify({ submissionId: row.id }), createdAt } };
    };

    it('claims a key repeated within one batch once: the first write is stored, the repeat conflicts', async () => {
      const [first, repeat, other] = [keyed(hookedFormId, 'key-batch-1'), keyed(hookedFormId, 'key-batch-1'), keyed(hookedFormId, 'key-batch-2')];
      const { results } = await store()([first, repeat, other], 0);
      expect(results).toEqual([{ stored: true }, { stored: false, reason: 'idempotency_conflict' }, { stored: true }]);
      expect(await storedCount([first.row.id, repeat.row.id, other.row.id])).toBe(2);
      const claim = await handle.db.selectFrom('idempotency_keys').select('submission_id').where('idempotency_key', '=', 'key-batch-1').executeTakeFirstOrThrow();
      expect(claim.submission_id).toBe(first.row.id);
    });

    it('a live claim from an earlier batch wins; an expired one is taken over', async () => {
      const live = keyed(hookedFormId, 'key-live');
      const expired = keyed(hookedFormId, 'key-expired', '2001-01-01T00:00:00.000Z');
      await store()([live, expired], 0);
      const cutoff = '2010-01-01T00:00:00.000Z';
      const again = [keyed(hookedFormId, 'key-live'), keyed(hookedFormId, 'key-expired')];
      const { results } = await batchStoreFor(handle, () => cutoff, outbox)(again, 0);
      expect(results).toEqual([{ stored: false, reason: 'idempotency_conflict' }, { stored: true }]);
      expect(await storedCount(again.map((w) => w.row.id))).toBe(1);
      const claim = await handle.db.selectFrom('idempotency_keys').select('submission_id').where('idempotency_key', '=', 'key-expired').executeTakeFirstOrThrow();
      expect(claim.submission_id).toBe(again[1]!.row.id);
    });

    it("adds what it stores to the form's counters, spam apart, and nothing it did not store", async () => {
      const { account } = await createOwner(servicesFor(handle));
      const form = await servicesFor(handle).forms.createForm(account.id, { name: 'Counted' });
      const first = [{ row: newSubmissionRow(form.id), queueOutbound: true }, { row: newSubmissionRow(form.id, { is_spam: 1 }), queueOutbound: false }, keyed(form.id, 'key-count')];
      await store()(first, 0);
      const second = [keyed(form.id, 'key-count'), { row: newSubmissionRow(form.id), queueOutbound: true }];
      const { results } = await store()(second, concurrency - 1);
      expect(results).toEqual([{ stored: false, reason: 'idempotency_conflict' }, { stored: true }]);
      const sums = async (table: 'form_counts' | 'form_hourly_counts') => {
        const rows = await handle.db.selectFrom(table).select(['inbox', 'spam']).where('form_id', '=', form.id).execute();
        return { inbox: rows.reduce((n, r) => n + Number(r.inbox), 0), spam: rows.reduce((n, r) => n + Number(r.spam), 0) };
      };
      expect(await sums('form_counts')).toEqual({ inbox: 3, spam: 1 });
      expect(await sums('form_hourly_counts')).toEqual({ inbox: 3, spam: 1 });
      const hours = await handle.db.selectFrom('form_hourly_counts').select('hour').distinct().where('form_id', '=', form.id).execute();
      const storedHours = new Set([...first, second[1]!].map((w) => w.row.created_at.slice(0, 13)));
      expect(new Set(hours.map((h) => h.hour))).toEqual(storedHours);
    });

    it('queues outbound work only for the writes that ask for it on a form with a hook, and counts them', async () => {
      const { account } = await createOwner(servicesFor(handle));
      const quiet = await servicesFor(handle).forms.createForm(account.id, { name: 'No hooks' });
      const writes = [
        { row: newSubmissionRow(hookedFormId), queueOutbound: true },
        { row: newSubmissionRow(hookedFormId), queueOutbound: false }, // spam held back
        { row: newSubmissionRow(quiet.id), queueOutbound: true }, // nothing to send to
      ];
      const { results, queued } = await store()(writes, 0);
      expect(results).toEqual([{ stored: true }, { stored: true }, { stored: true }]);
      expect(queued).toBe(1);
      const rows = await handle.db.selectFrom('outbox').select('submission_id').where('submission_id', 'in', writes.map((w) => w.row.id)).execute();
      expect(rows.map((r) => r.submission_id)).toEqual([writes[0]!.row.id]);
    });
  });
});
