import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createMigrator } from '../../src/platform/db/migrate.js';
import type { Services } from '../../src/services.js';
import { SearchIndexer, pauseAfterMergeStep } from '../../src/features/search/search.service.js';
import { SubmissionBrowseService } from '../../src/features/submissions/submission-browse.service.js';
import { indexPendingSubmissions, mergeSearchIndexStep } from '../../src/features/search/search.repository.js';
import { createOwner, insertMessages, useMigratedDatabase } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';

// SQLite only (the postgres project leaves out *.sqlite.test.ts): the FTS5 index's segments are
// merged by the search indexer in bounded steps, not inside the write that adds one (migration 0017).

let handle: DatabaseHandle;
let services: Services;
useMigratedDatabase((opened) => ({ handle, services } = opened));

const automerge = async () =>
  (await sql<{ v: number }>`select v from submissions_fts_config where k = 'automerge'`.execute(handle.db)).rows[0]?.v;
/** Rows of the index's data table: the structure record and each segment's pages. */
const dataRows = async () => Number((await sql<{ n: number }>`select count(*) as n from submissions_fts_data`.execute(handle.db)).rows[0]!.n);
const mergeStep = () => handle.db.transaction().execute((trx) => mergeSearchIndexStep(trx, 64));
/**
 * Rows of one word, each indexed in a transaction of its own: a segment each, on the lowest level,
 * where FTS5 merges four or more. Returns their IDs.
 */
async function indexedSegments(formId: string, word: string, segments: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < segments; i++) {
    ids.push(...(await insertMessages(services, formId, `${word} ${i}`)));
    expect(await handle.db.transaction().execute((trx) => indexPendingSubmissions(trx, 1000))).toBe(1);
  }
  return ids;
}
/** indexedSegments, then one more row left waiting; returns every row's ID. */
async function segmentsThenOneWaiting(formId: string, word: string, segments: number): Promise<string[]> {
  return [...(await indexedSegments(formId, word, segments)), ...(await insertMessages(services, formId, `${word} last`))];
}
const search = (accountId: string, formId: string, q: string, browser = services.submissionBrowser) =>
  browser.browse(accountId, formId, { q, limit: 100 }).then((page) => page.submissions.map((s) => s.id).sort());

describe("SQLite's search index, merged in steps", () => {
  it('a write does not merge the segments; the merge steps do, until there is nothing left to merge', async () => {
    expect(await automerge()).toBe(0);
    await services.searchIndex.indexPending();
    while (await mergeStep());
    const { account, form } = await createOwner(services);
    const rowsBefore = await dataRows();
    const ids = await segmentsThenOneWaiting(form.id, 'nectarine', 6);
    await handle.db.transaction().execute((trx) => indexPendingSubmissions(trx, 1000));
    const unmerged = await dataRows();
    expect(unmerged).toBeGreaterThanOrEqual(rowsBefore + 7);

    expect(await mergeStep()).toBe(true);
    let steps = 1;
    while (await mergeStep()) steps++;
    expect(steps).toBeLessThan(10);
    expect(await dataRows()).toBeLessThan(unmerged);
    expect(await search(account.id, form.id, 'nectarine')).toEqual([...ids].sort());
  });

  it('the indexer merges after its chunks, leaving nothing to merge', async () => {
    const { account, form } = await createOwner(services);
    const ids = await segmentsThenOneWaiting(form.id, 'damson', 5);
    await services.searchIndex.indexPending();
    expect(await mergeStep()).toBe(false);
    expect(await search(account.id, form.id, 'damson')).toEqual([...ids].sort());
  });

  it("a search's catch-up indexes without merging; a pass of the timer merges right after", async () => {
    await services.searchIndex.indexPending();
    const { account, form } = await createOwner(services);
    const ids = await segmentsThenOneWaiting(form.id, 'medlar', 5);
    const unmerged = await dataRows();
    expect(await search(account.id, form.id, 'medlar')).toEqual([...ids].sort());
    expect(await dataRows()).toBeGreaterThan(unmerged); // the last row's segment, nothing merged
    await waitFor(async () => (await dataRows()) < unmerged, 2000, 'the merge after the search');
    expect(await search(account.id, form.id, 'medlar')).toEqual([...ids].sort());
  });

  it("the merge loop waits between steps as its pause says, and a search's catch-up does not wait for the loop", async () => {
    await services.searchIndex.indexPending();
    const { account, form } = await createOwner(services);
    const held: number[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reachedPause!: () => void;
    const paused = new Promise<void>((resolve) => (reachedPause = resolve));
    const indexer = new SearchIndexer(handle, pino({ level: 'silent' }), {
      pauseAfterMergeStep: async (heldMs) => {
        held.push(heldMs);
        reachedPause();
        await released;
      },
    });
    const browser = new SubmissionBrowseService(handle.db, handle.dialect, services.forms, services.inbox, indexer);
    try {
      const ids = await segmentsThenOneWaiting(form.id, 'quince', 5);
      let passOver = false;
      const pass = indexer.indexPending().then(() => (passOver = true));
      await paused; // a step merged, and the loop waits in its pause
      expect(held).toHaveLength(1);

      const late = await insertMessages(services, form.id, 'quince late');
      expect(await search(account.id, form.id, 'quince', browser)).toEqual([...ids, ...late].sort());
      expect(held).toHaveLength(1); // still in the same pause
      expect(passOver).toBe(false); // the search did not wait for the merge loop

      release();
      await pass;
      expect(await mergeStep()).toBe(false);
      expect(await search(account.id, form.id, 'quince', browser)).toEqual([...ids, ...late].sort());
    } finally {
      release();
      await indexer.close();
    }
  });

  it('rows indexed around the end of a merge loop are merged, whichever microtask they arrive in', async () => {
    const { form } = await createOwner(services);
    const indexer = new SearchIndexer(handle, pino({ level: 'silent' }));
    try {
      for (let tick = 0; tick < 80; tick++) {
        await indexedSegments(form.id, `sloe${tick}`, 3); // the late row's segment is the fourth: a merge is due
        const first = indexer.indexPending();
        for (let i = 0; i < tick; i++) await Promise.resolve();
        await insertMessages(services, form.id, `late ${tick}`);
        const second = indexer.indexPending();
        await Promise.all([first, second]);
        expect({ tick, more: await mergeStep() }).toEqual({ tick, more: false });
      }
    } finally {
      await indexer.close();
    }
  });

  it('the default pause: a short step is followed at once, a long one is paced (how a pause ends: lib/yield.test.ts)', async () => {
    const closed = new AbortController();
    await pauseAfterMergeStep(1, closed.signal);
    let over = false;
    const long = pauseAfterMergeStep(10_000, closed.signal).then(() => (over = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(over).toBe(false);
    closed.abort();
    await long;
  });

  it('down: FTS5 merges inside each write again', async () => {
    expect((await (await createMigrator(handle)).migrateTo('0016_search_vector_parallel_restricted')).error).toBeUndefined();
    expect(await automerge()).toBe(4);
    expect((await (await createMigrator(handle)).migrateToLatest()).error).toBeUndefined();
    expect(await automerge()).toBe(0);
  });
});
