import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { SEARCH_INDEX_DELAY_MS, SearchIndexer } from '../../src/features/search/search.service.js';
import type { Services } from '../../src/services.js';
import { buildTestApp } from '../helpers/app.js';
import { createOwner, insertMessages, insertSubmissions, useMigratedDatabase } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';

let handle: DatabaseHandle;
let services: Services;
useMigratedDatabase((opened) => ({ handle, services } = opened));

/** Search index entries of one submission (SQLite's FTS5 rows); PostgreSQL indexes on insert. */
async function indexEntriesOf(id: string, word: string): Promise<number> {
  if (handle.dialect !== 'sqlite') return 1;
  const { rows } = await sql<{ n: number }>`select count(*) as n from submissions_fts f join submissions s on s.rowid = f.rowid
    where submissions_fts match ${`body : ${word}`} and s.id = ${id}`.execute(handle.db);
  return Number(rows[0]!.n);
}

const search = (accountId: string, formId: string, q: string, spam?: boolean) =>
  services.submissionBrowser.browse(accountId, formId, { q, ...(spam === undefined ? {} : { spam }) }).then((p) => p.submissions.map((s) => s.id));

/**
 * A test's own indexer (the file's is closed, so only this one runs), a form with one row waiting,
 * and the connection held by a transaction until `release()`: a pass started meanwhile runs, its
 * chunk waiting, until then.
 */
async function indexerWithConnectionHeld(words: string) {
  await services.searchIndex.close();
  const { form } = await createOwner(services);
  await insertMessages(services, form.id, words);
  const indexer = new SearchIndexer(handle, pino({ level: 'silent' }));
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = handle.db.transaction().execute(() => gate);
  return { form, indexer, held, release: () => release() };
}

describe('the search index, kept after the submit transaction', () => {
  it('a search finds a submission committed a moment ago, before the indexer has run', async () => {
    const { account, form } = await createOwner(services);
    const [id] = await insertMessages(services, form.id, 'fresh kumquat');
    expect(await services.searchIndex.countPending()).toBe(handle.dialect === 'sqlite' ? 1 : 0);
    expect(await search(account.id, form.id, 'kumquat')).toEqual([id]);
    expect(await services.searchIndex.countPending()).toBe(0);
    expect(await indexEntriesOf(id!, 'kumquat')).toBe(1);
  });

  it('indexes a submission accepted over HTTP within a second, with no search asking for it', async () => {
    const app = await buildTestApp();
    try {
      const { account, form } = await createOwner(app.services);
      const res = await app.fetch(`/v1/submit/${form.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ message: 'a persimmon arrives' }),
      });
      expect(res.status).toBe(200);
      const { submissionId } = (await res.json()) as { submissionId: string };
      const accepted = Date.now();
      await waitFor(async () => (await app.services.searchIndex.countPending()) === 0, 1000, 'the indexer');
      expect(Date.now() - accepted).toBeLessThan(1000);
      if (app.handle.dialect === 'sqlite') {
        const { rows } = await sql<{ n: number }>`select count(*) as n from submissions_fts where submissions_fts match 'body : persimmon'`.execute(app.handle.db);
        expect(Number(rows[0]!.n)).toBe(1);
      }
      const found = await app.services.submissionBrowser.browse(account.id, form.id, { q: 'persimmon' });
      expect(found.submissions.map((s) => s.id)).toEqual([submissionId]);
    } finally {
      await app.close();
    }
  });

  it('a submission marked spam or deleted before it was indexed is indexed once, or not at all', async () => {
    const { account, form } = await createOwner(services);
    const now = new Date().toISOString();
    const [marked, deleted, plain] = await insertSubmissions(services, form.id, [
      { createdAt: now, payload: { message: 'tangerine one' } },
      { createdAt: now, payload: { message: 'tangerine two' } },
      { createdAt: now, payload: { message: 'tangerine three' } },
    ]);
    await services.triage.markSubmissions([marked!], true, account.id);
    await services.lifecycle.deleteSubmissions(account.id, form.id, [deleted!]);
    await services.searchIndex.indexPending();
    expect(await indexEntriesOf(marked!, 'tangerine')).toBe(1);
    expect(await indexEntriesOf(plain!, 'tangerine')).toBe(1);
    expect(await search(account.id, form.id, 'tangerine', true)).toEqual([marked]);
    expect(await search(account.id, form.id, 'tangerine', false)).toEqual([plain]);
    expect(await services.searchIndex.countPending()).toBe(0);
  });

  it('a row reusing a deleted row’s rowid is indexed with its own words', async () => {
    const { account, form } = await createOwner(services);
    const [first] = await insertMessages(services, form.id, 'apricot');
    await services.searchIndex.indexPending();
    // The newest row deleted: SQLite gives its rowid to the next insert.
    await services.lifecycle.deleteSubmissions(account.id, form.id, [first!]);
    const [second] = await insertMessages(services, form.id, 'quince');
    expect(await search(account.id, form.id, 'quince')).toEqual([second]);
    expect(await search(account.id, form.id, 'apricot')).toEqual([]);
  });

  it('what a crash left unindexed is indexed at the next start, in chunks', async () => {
    // The file's own indexer stopped first: a search above woke it to merge, and its pass would
    // index these rows before the restarted one does.
    await services.searchIndex.close();
    const { account, form } = await createOwner(services);
    const now = new Date().toISOString();
    const ids = await insertSubmissions(
      services,
      form.id,
      Array.from({ length: 2500 }, (_, i) => ({ createdAt: now, payload: { message: `mango ${i}` } })),
    );
    const restarted = new SearchIndexer(handle, pino({ level: 'silent' }));
    const started = Date.now();
    restarted.start();
    await waitFor(async () => (await restarted.countPending()) === 0, 5000, 'the start-up indexing');
    expect(Date.now() - started).toBeGreaterThanOrEqual(handle.dialect === 'sqlite' ? SEARCH_INDEX_DELAY_MS - 5 : 0);
    await restarted.close();
    const page = await services.submissionBrowser.browse(account.id, form.id, { q: 'mango', limit: 100 });
    expect(page.submissions).toHaveLength(100);
    expect(await indexEntriesOf(ids[0]!, 'mango')).toBe(1);
    expect(await indexEntriesOf(ids[2499]!, 'mango')).toBe(1);
  });

  it('a commit that wakes the indexer while a pass runs is indexed by a pass after it', async () => {
    const sqlite = handle.dialect === 'sqlite';
    // Only this test's indexer runs (a search above may have woken the file's own).
    await services.searchIndex.close();
    const { form } = await createOwner(services);
    await insertMessages(services, form.id, 'early longan');
    // The wake's timer fires when the test says: on a loaded machine the pass (its merge included)
    // can outlast the delay, and the timer's pass would then index the late row before it is counted.
    // The merge's pauses are no timers here, so the faked clock cannot hold the pass.
    const indexer = new SearchIndexer(handle, pino({ level: 'silent' }), { pauseAfterMergeStep: () => Promise.resolve() });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const pass = indexer.indexPending();
      // The connection takes transactions in the order asked for, so this row commits after the
      // pass's chunk has read what waits; the wake comes while the pass runs, as the writer's would.
      const late = insertMessages(services, form.id, 'late lychee');
      indexer.wake();
      await Promise.all([pass, late]);
      expect(await indexer.countPending()).toBe(sqlite ? 1 : 0);
      const passes = vi.spyOn(indexer, 'indexPending');
      vi.advanceTimersByTime(SEARCH_INDEX_DELAY_MS);
      expect(passes).toHaveBeenCalledTimes(sqlite ? 1 : 0);
      await passes.mock.results[0]?.value;
      expect(await indexer.countPending()).toBe(0);
    } finally {
      vi.useRealTimers();
      await indexer.close();
    }
  });

  it('wakes during a long pass leave one pass to follow it, not one per timer', async () => {
    const sqlite = handle.dialect === 'sqlite';
    const { indexer, held, release } = await indexerWithConnectionHeld('held plum');
    const passes = vi.spyOn(indexer, 'indexPending');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const pass = indexer.indexPending();
      passes.mockClear();
      // A commit's wake every timer's length, five times, while the pass runs.
      for (let i = 0; i < 5; i++) {
        indexer.wake();
        vi.advanceTimersByTime(SEARCH_INDEX_DELAY_MS);
      }
      expect(passes).toHaveBeenCalledTimes(0);
      release();
      await Promise.all([held, pass]);
      vi.advanceTimersByTime(SEARCH_INDEX_DELAY_MS);
      expect(passes).toHaveBeenCalledTimes(sqlite ? 1 : 0);
      await passes.mock.results[0]?.value;
      expect(await indexer.countPending()).toBe(0);
    } finally {
      vi.useRealTimers();
      release();
      await indexer.close();
    }
  });

  it('searches arriving during a pass share one pass after it, which takes their rows', async () => {
    const sqlite = handle.dialect === 'sqlite';
    const { form, indexer, held, release } = await indexerWithConnectionHeld('held quince');
    const passes = vi.spyOn(indexer as unknown as { indexAll(): Promise<void> }, 'indexAll');
    // The first pass leaves its rows unmerged and so wakes the timer; fake, it cannot add a pass of
    // its own to the count however long a loaded machine takes to get there.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const first = indexer.indexPending({ merge: false });
      // Queued behind the first pass's chunk, so only a pass after it can index this row.
      const late = insertMessages(services, form.id, 'late quince');
      const searches = Array.from({ length: 5 }, () => indexer.indexPending({ merge: false }));
      release();
      await Promise.all([held, first, late]);
      await Promise.all(searches);
      expect(passes).toHaveBeenCalledTimes(sqlite ? 2 : 0);
      expect(await indexer.countPending()).toBe(0);
    } finally {
      vi.useRealTimers();
      release();
      await indexer.close();
    }
  });
});
