import { describe, expect, it } from 'vitest';
import type { NewSubmissionRow } from '../../src/platform/db/schema.js';
import type { BatchedSubmission } from '../../src/features/submit/submission.repository.js';
import { SubmissionWriter, type BatchStore, type WriteResult, type WriterOptions } from '../../src/features/submit/submission.writer.js';
import { waitFor } from '../helpers/wait.js';

/** A submission to write; the fake store looks at its ID only. */
const submission = (id: string, queueOutbound = false): BatchedSubmission => ({ row: { id } as NewSubmissionRow, queueOutbound });

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** Two turns of the event loop: the writer starts batches in the check phase. */
const twoTurns = async () => {
  await nextTurn();
  await nextTurn();
};

interface Call {
  ids: string[];
  slot: number;
  /** Settles this call as the database would: commit (with these results) or fail. */
  commit(results?: WriteResult[], queued?: number): void;
  fail(error: unknown): void;
}

/** A store whose every call waits until the test commits or fails it. */
function heldStore() {
  const calls: Call[] = [];
  const store: BatchStore = (batch, slot) =>
    new Promise((resolve, reject) => {
      calls.push({
        ids: batch.map((w) => w.row.id),
        slot,
        commit: (results = batch.map(() => ({ stored: true })), queued = batch.filter((w) => w.queueOutbound).length) => resolve({ results, queued }),
        fail: reject,
      });
    });
  return { store, calls };
}

/** A store that commits at once, failing the batches `fails` says. */
function instantStore(fails: (ids: string[]) => unknown = () => undefined) {
  const calls: string[][] = [];
  const store: BatchStore = async (batch) => {
    const ids = batch.map((w) => w.row.id);
    calls.push(ids);
    const error = fails(ids);
    if (error) throw error;
    return { results: batch.map(() => ({ stored: true })), queued: batch.filter((w) => w.queueOutbound).length };
  };
  return { store, calls };
}

const wakeUps = () => {
  const counts = { outbox: 0, stored: 0 };
  return { counts, outbox: { committed: () => void counts.outbox++ }, options: { onStored: () => void counts.stored++ } satisfies WriterOptions };
};

/** Whether a promise has settled yet, without waiting for it. */
function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  return () => done;
}

const notNullViolation = () => Object.assign(new Error('null value in column "status"'), { code: '23502' });

describe('SubmissionWriter', () => {
  it('puts the submissions of one turn in one batch, and those arriving during a commit in the next', async () => {
    const { store, calls } = heldStore();
    const writer = new SubmissionWriter(store, { committed: () => {} });
    const first = ['a', 'b', 'c'].map((id) => writer.write(submission(id)));
    await twoTurns();
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b', 'c']]);

    const second = ['d', 'e'].map((id) => writer.write(submission(id)));
    await twoTurns();
    const third = writer.write(submission('f'));
    await twoTurns();
    expect(calls).toHaveLength(1); // one batch at a time by default

    calls[0]!.commit();
    await twoTurns();
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b', 'c'], ['d', 'e', 'f']]);
    calls[1]!.commit();
    expect(await Promise.all([...first, ...second, third])).toEqual(Array(6).fill({ stored: true }));
    expect(writer.stats).toEqual({ transactions: 2, submissions: 6 });
  });

  it('answers no submission before the batch holding it has committed', async () => {
    const { store, calls } = heldStore();
    const writer = new SubmissionWriter(store, { committed: () => {} });
    const answered = settled(writer.write(submission('a')));
    await twoTurns();
    await twoTurns();
    expect(calls).toHaveLength(1);
    expect(answered()).toBe(false);
    calls[0]!.commit();
    await twoTurns();
    expect(answered()).toBe(true);
  });

  it('answers each submission with its own result, and counts only what was stored', async () => {
    const { store, calls } = heldStore();
    const writer = new SubmissionWriter(store, { committed: () => {} });
    const writes = ['a', 'b', 'c'].map((id) => writer.write(submission(id)));
    await twoTurns();
    calls[0]!.commit([{ stored: true }, { stored: false, reason: 'idempotency_conflict' }, { stored: false, reason: 'form_missing' }], 0);
    expect(await Promise.all(writes)).toEqual([{ stored: true }, { stored: false, reason: 'idempotency_conflict' }, { stored: false, reason: 'form_missing' }]);
    expect(writer.stats).toEqual({ transactions: 1, submissions: 1 });
  });

  it('writes at most 256 submissions a batch', async () => {
    const { store, calls } = instantStore();
    const writer = new SubmissionWriter(store, { committed: () => {} });
    const writes = Array.from({ length: 300 }, (_, i) => writer.write(submission(`s${i}`)));
    await Promise.all(writes);
    expect(calls.map((ids) => ids.length)).toEqual([256, 44]);
    expect(calls.flat()).toEqual(Array.from({ length: 300 }, (_, i) => `s${i}`));
  });

  it('retries a failed batch one submission at a time, so a bad row fails only its own write', async () => {
    const bad = notNullViolation();
    const { store, calls } = instantStore((ids) => (ids.includes('bad') ? bad : undefined));
    const writer = new SubmissionWriter(store, { committed: () => {} });
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((id) => writer.write(submission(id))));
    expect(results).toEqual([
      { status: 'fulfilled', value: { stored: true } },
      { status: 'rejected', reason: bad },
      { status: 'fulfilled', value: { stored: true } },
    ]);
    expect(calls).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    expect(writer.stats).toEqual({ transactions: 2, submissions: 2 });
  });

  it('does not retry a lone submission its statement refused', async () => {
    const bad = notNullViolation();
    const { store, calls } = instantStore(() => bad);
    const writer = new SubmissionWriter(store, { committed: () => {} });
    await expect(writer.write(submission('bad'))).rejects.toBe(bad);
    expect(calls).toEqual([['bad']]);
  });

  it('tries a lone submission once more when its connection broke or it lost a deadlock', async () => {
    for (const fault of [{ code: '57P01' }, { code: '08006' }, { code: '40P01' }, {}]) {
      let failed = 0;
      const { store, calls } = instantStore(() => (failed++ === 0 ? Object.assign(new Error('fault'), fault) : undefined));
      const writer = new SubmissionWriter(store, { committed: () => {} });
      expect(await writer.write(submission('a')), JSON.stringify(fault)).toEqual({ stored: true });
      expect(calls).toEqual([['a'], ['a']]);
    }
    const again = Object.assign(new Error('terminated'), { code: '57P01' });
    const { store, calls } = instantStore(() => again);
    await expect(new SubmissionWriter(store, { committed: () => {} }).write(submission('a'))).rejects.toBe(again);
    expect(calls).toHaveLength(2);
  });

  it('wakes the outbox after a commit that queued work, and the indexer after one that stored something', async () => {
    const { counts, outbox, options } = wakeUps();
    const { store, calls } = heldStore();
    const writer = new SubmissionWriter(store, outbox, options);
    const quiet = writer.write(submission('a', false));
    await twoTurns();
    calls[0]!.commit([{ stored: true }], 0);
    await quiet;
    expect(counts).toEqual({ outbox: 0, stored: 1 });

    const refused = writer.write(submission('b', true));
    await twoTurns();
    calls[1]!.commit([{ stored: false, reason: 'idempotency_conflict' }], 0);
    await refused;
    expect(counts).toEqual({ outbox: 0, stored: 1 });

    const outbound = writer.write(submission('c', true));
    await twoTurns();
    calls[2]!.commit([{ stored: true }], 1);
    await outbound;
    expect(counts).toEqual({ outbox: 1, stored: 2 });
  });

  it('reports a wake-up that throws after the commit, answers the batch and never writes it again', async () => {
    const { store, calls } = instantStore();
    const failures: unknown[] = [];
    const wakeFailure = new Error('wake failed');
    const writer = new SubmissionWriter(store, { committed: () => { throw wakeFailure; } }, { onWakeFailed: (err) => failures.push(err) });
    expect(await Promise.all([writer.write(submission('a', true)), writer.write(submission('b', true))])).toEqual([{ stored: true }, { stored: true }]);
    await writer.drain();
    expect(calls).toEqual([['a', 'b']]);
    expect(failures).toEqual([wakeFailure]);
  });

  it('with several batches at once, starts another only once enough submissions wait, each in a slot of its own', async () => {
    const { store, calls } = heldStore();
    const writer = new SubmissionWriter(store, { committed: () => {} }, { maxConcurrentBatches: 2, minConcurrentBatchSize: 3 });
    const writes = [writer.write(submission('a'))];
    await twoTurns();
    writes.push(writer.write(submission('b')), writer.write(submission('c')));
    await twoTurns();
    expect(calls.map((c) => c.ids)).toEqual([['a']]); // two waiting: they wait for the first batch
    writes.push(writer.write(submission('d')));
    await twoTurns();
    expect(calls.map((c) => c.ids)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(new Set(calls.map((c) => c.slot))).toEqual(new Set([0, 1]));

    writes.push(writer.write(submission('e')), writer.write(submission('f')), writer.write(submission('g')));
    await twoTurns();
    expect(calls).toHaveLength(2); // both slots taken
    calls[1]!.commit();
    await twoTurns();
    expect(calls[2]!.ids).toEqual(['e', 'f', 'g']);
    expect(calls[2]!.slot).toBe(calls[1]!.slot); // the freed slot
    calls[0]!.commit();
    calls[2]!.commit();
    expect(await Promise.all(writes)).toEqual(Array(7).fill({ stored: true }));
  });

  it('starts a batch beside a slow one once the oldest waiting submission has waited long enough', async () => {
    const { store, calls } = heldStore();
    const writer = new SubmissionWriter(store, { committed: () => {} }, { maxConcurrentBatches: 2, minConcurrentBatchSize: 100, maxConcurrentWaitMs: 20 });
    const first = writer.write(submission('a'));
    await twoTurns();
    const queuedAt = performance.now();
    const second = writer.write(submission('b'));
    await twoTurns();
    expect(calls).toHaveLength(1);
    await waitFor(() => calls.length === 2, 5000, 'a second batch once the lone submission has waited 20 ms');
    expect(performance.now() - queuedAt).toBeGreaterThanOrEqual(20);
    calls.forEach((c) => c.commit());
    expect(await Promise.all([first, second])).toEqual([{ stored: true }, { stored: true }]);
  });

  it('drain resolves at once when idle, else once everything queued is answered', async () => {
    const { store, calls } = heldStore();
    const writer = new SubmissionWriter(store, { committed: () => {} });
    await expect(writer.drain()).resolves.toBeUndefined();
    const write = writer.write(submission('a'));
    const drained = settled(writer.drain());
    await twoTurns();
    expect(drained()).toBe(false);
    calls[0]!.commit();
    await write;
    await twoTurns();
    expect(drained()).toBe(true);
  });
});
