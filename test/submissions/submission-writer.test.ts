import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { NewSubmissionRow } from '../../src/db/schema.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { queueOutboundWork } from '../../src/outbox/outbox.repository.js';
import { SubmissionWriter, type OutboxSignal } from '../../src/submissions/submission.writer.js';
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
  const { account, form } = await createOwner(servicesFor(handle));
  hookedFormId = form.id;
  // A hook row makes every transaction call queueInTransaction, where the test holds it open.
  await handle.db
    .insertInto('hooks')
    .values({ id: 'hook_writer_test', account_id: account.id, form_id: hookedFormId, target_url: 'https://example.com/hook', secret: 'whsec_test', created_at: '2000-01-01T00:00:00.000Z' })
    .execute();
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

/** A delivery signal that holds each transaction open until released, counting how many are open. */
function gatedSignal() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const state = { open: 0, peak: 0, entered: 0 };
  const signal: OutboxSignal = {
    async queueInTransaction(trx, ids) {
      const queued = await queueOutboundWork(trx, ids, { email: false });
      state.entered++;
      state.open++;
      state.peak = Math.max(state.peak, state.open);
      await gate;
      state.open--;
      return queued;
    },
    wake() {},
  };
  return { signal, state, release };
}

const noCutoff = () => '1970-01-01T00:00:00.000Z';
const storedCount = async (ids: string[]) =>
  (await handle.db.selectFrom('submissions').select('id').where('id', 'in', ids).execute()).length;

describe(`submission writer on ${testDialect}`, () => {
  // SQLite has one connection: one transaction at a time. PostgreSQL may run several.
  const concurrency = testDialect === 'postgres' ? 2 : 1;

  it(`runs at most ${concurrency} transaction(s) at once, and drain waits for all of them`, async () => {
    const { signal, state, release } = gatedSignal();
    const writer = new SubmissionWriter(handle.db, noCutoff, signal, concurrency);
    const rows: NewSubmissionRow[] = [];
    const write = () => {
      const r = newSubmissionRow(hookedFormId);
      rows.push(r);
      return writer.write({ row: r, queueOutbound: true });
    };

    const writes = [write()];
    await waitFor(() => state.entered === 1, 5000, 'the first batch to open its transaction');
    writes.push(write(), write());
    if (concurrency > 1) await waitFor(() => state.entered === 2, 5000, 'a second batch beside the first');
    writes.push(write());
    let drained = false;
    const drain = writer.drain().then(() => (drained = true));
    // Nothing more may start while the slots are full, and nothing is answered before its commit.
    // (Two turns of the event loop: the writer starts batches in the check phase. No query here:
    // on SQLite the open transaction holds the only connection.)
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(state.entered).toBe(concurrency);
    // A third batch would have taken a pool client at its start, before reaching the gate.
    const pool = handle.pgPool;
    if (pool) expect(pool.totalCount - pool.idleCount).toBe(concurrency);
    expect(drained).toBe(false);

    release();
    expect(await Promise.all(writes)).toEqual(rows.map(() => ({ stored: true })));
    await drain;
    expect(state.peak).toBe(concurrency);
    expect(await storedCount(rows.map((r) => r.id))).toBe(rows.length);
    const fanouts = await handle.db.selectFrom('outbox').select('submission_id').where('submission_id', 'in', rows.map((r) => r.id)).execute();
    expect(fanouts).toHaveLength(rows.length);
  });

  it('retries a failed batch one write at a time, so one bad row fails only its own request', async () => {
    const writer = new SubmissionWriter(handle.db, noCutoff, { queueInTransaction: (trx, ids) => queueOutboundWork(trx, ids, { email: false }), wake() {} }, concurrency);
    const good = [newSubmissionRow(hookedFormId), newSubmissionRow(hookedFormId)];
    const bad = newSubmissionRow('frm_does_not_exist'); // the foreign key refuses it
    const results = await Promise.allSettled([writer.write({ row: good[0]!, queueOutbound: false }), writer.write({ row: bad, queueOutbound: false }), writer.write({ row: good[1]!, queueOutbound: false })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await storedCount(good.map((r) => r.id))).toBe(2);
    expect(await storedCount([bad.id])).toBe(0);
    await writer.drain();
  });

  it('drain resolves at once when nothing is queued', async () => {
    const writer = new SubmissionWriter(handle.db, noCutoff, { queueInTransaction: (trx, ids) => queueOutboundWork(trx, ids, { email: false }), wake() {} }, concurrency);
    await expect(writer.drain()).resolves.toBeUndefined();
  });
});
