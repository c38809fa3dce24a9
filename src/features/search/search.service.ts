import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { pauseInProportion } from '../../platform/lib/yield.js';
import { PendingListMerger, type PendingListMergerOptions } from './search-pending-merge.js';
import { countPendingSearchRows, indexPendingSubmissions, mergeSearchIndexStep } from './search.repository.js';

/** How long new submissions gather before they are indexed: large batches are what make FTS5 cheap. */
export const SEARCH_INDEX_DELAY_MS = 200;
/**
 * Rows per indexing transaction (~5 ms of the event loop); the next chunk waits for the loop's
 * other work. Not fewer: smaller chunks lower the plain submit p99 but put the p99 during a
 * retention purge past its target, as more transactions queue for the write lock
 * (figures: docs/performance.md#search-indexing-after-the-commit).
 */
const ROWS_PER_CHUNK = 1000;
/**
 * Pages written per merge step (migration 0017): ~1–5 ms a step, where FTS5's own merge inside a
 * chunk would take 15–25 ms about once in four chunks. A word's entries are merged whole, so a step
 * over large segments of a very common word (the form's filter words) can take 30–70 ms.
 */
const MERGE_PAGES_PER_STEP = 64;
/**
 * After a merge step that held the event loop d ms (from MERGE_PACED_FROM_MS on), the next step
 * waits MERGE_PAUSE_FACTOR × d: a large merge (a dozen steps of 15–60 ms over a big level) then
 * takes at most a fifth of the loop, and a request meets one such hold, not a streak of them.
 * Unpaced, those streaks would put the submit p99 during a retention purge past its target
 * (docs/performance.md#search-indexing-after-the-commit). Shorter steps, most of them, follow
 * after the loop's queued work.
 */
const MERGE_PAUSE_FACTOR = 4;
const MERGE_PACED_FROM_MS = 8;

/** The default pause between merge steps (see MERGE_PAUSE_FACTOR); cut short when the indexer closes. */
export function pauseAfterMergeStep(heldMs: number, closed: AbortSignal): Promise<void> {
  if (heldMs < MERGE_PACED_FROM_MS) return nextTurn();
  return pauseInProportion(heldMs, { factor: MERGE_PAUSE_FACTOR, signal: closed, ref: false });
}

export interface SearchIndexerOptions {
  /** Waited for between two merge steps, given how long the first held the loop (tests pass their own). */
  pauseAfterMergeStep?: (heldMs: number, closed: AbortSignal) => Promise<void>;
  /** PostgreSQL's pending-list merges (tests pass a shorter delay). */
  pendingListMerge?: PendingListMergerOptions;
}

/**
 * SQLite's search index, kept off the submit transaction (migration 0012): after a commit the
 * new submissions wait up to SEARCH_INDEX_DELAY_MS and are then indexed in one transaction per
 * chunk. A search first indexes whatever is still waiting, so what the dashboard shows never
 * lags; the delay bounds when a submission becomes findable otherwise (a second at most,
 * tested). Rows left waiting by a crash are indexed at the next start. The index's segments are
 * merged after the chunks, in paced steps (migration 0017), by a loop of their own that neither a
 * search's catch-up nor the next chunks wait for. On PostgreSQL the GIN index is maintained by the
 * insert, and a commit only wakes the merge of its pending list (search-pending-merge.ts).
 */
export class SearchIndexer {
  private timer: NodeJS.Timeout | undefined;
  /** The chunks being indexed. */
  private running: Promise<void> | undefined;
  /** The pass that starts once `running` ends, shared by every caller that arrived during it. */
  private following: Promise<void> | undefined;
  /** The merge loop, when one runs. */
  private merging: Promise<void> | undefined;
  /** Aborted by close(): stops the timer's passes and the merge loop, and cuts short a pause between steps. */
  private readonly closed = new AbortController();
  /** Rows were indexed since the merge loop last started a pass (a search's catch-up leaves merging to the timer's pass). */
  private unmerged = false;
  private readonly pauseAfterMergeStep: (heldMs: number, closed: AbortSignal) => Promise<void>;
  private readonly pendingListMerger: PendingListMerger;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
    options: SearchIndexerOptions = {},
  ) {
    this.pauseAfterMergeStep = options.pauseAfterMergeStep ?? pauseAfterMergeStep;
    this.pendingListMerger = new PendingListMerger(handle, logger, options.pendingListMerge);
  }

  private get enabled(): boolean {
    return this.handle.dialect === 'sqlite' && !this.closed.signal.aborted;
  }

  /**
   * After submissions were committed: index them shortly. Also while a pass runs: its last chunk
   * may have read what waited before this commit. A timer that finds a pass still running arms
   * the next instead of waiting behind it, so a long pass (a backlog at start-up) is followed by
   * one pass, not by one for every timer that came due meanwhile.
   */
  wake(): void {
    if (this.handle.dialect === 'postgres') return this.pendingListMerger.wake();
    if (!this.enabled || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) return this.wake();
      void this.indexPending().catch((err: unknown) => {
        this.logger.warn({ err }, 'search indexing failed; retrying');
        this.wake();
      });
    }, SEARCH_INDEX_DELAY_MS);
    this.timer.unref();
  }

  /**
   * Indexes everything waiting now, then merges the index's segments; resolves once both are done.
   * `merge: false` (a search waiting on it) resolves once the rows are searchable and leaves
   * merging to a pass of the timer, woken for it.
   */
  async indexPending(options: { merge?: boolean } = {}): Promise<void> {
    if (this.handle.dialect !== 'sqlite') return;
    await this.passStartedAfterNow();
    if (options.merge === false) {
      if (this.unmerged) this.wake();
      return;
    }
    await this.mergePending();
  }

  async countPending(): Promise<number> {
    return this.handle.dialect === 'sqlite' ? countPendingSearchRows(this.handle.db) : 0;
  }

  /** Start: what a crash left waiting. */
  start(): void {
    this.wake();
  }

  /**
   * Stops the timer and the merge loop (after its current step) and indexes what is waiting:
   * what a crash would leave, the next start indexes. Segments left unmerged are merged after the
   * next rows indexed.
   */
  async close(): Promise<void> {
    await this.pendingListMerger.close();
    this.closed.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.merging?.catch(() => undefined);
    await this.indexPending({ merge: false }).catch((err: unknown) => this.logger.warn({ err }, 'search indexing at shutdown failed'));
  }

  /**
   * One pass at a time. A pass running now may have read what waits before the caller's rows
   * committed, so a caller arriving during it needs the pass after it; every caller arriving
   * during one pass shares that next pass (a burst of searches behind a long catch-up costs one
   * more pass, not one each). The running pass's failure is its own callers'; the next pass runs anyway.
   */
  private passStartedAfterNow(): Promise<void> {
    // `following` first: between the running pass's end and the start of the next, only it is set.
    if (this.following) return this.following;
    if (!this.running) return this.startPass();
    this.following = this.running
      .catch(() => undefined)
      .then(() => {
        this.following = undefined;
        return this.startPass();
      });
    return this.following;
  }

  private startPass(): Promise<void> {
    const pass = this.indexAll().finally(() => {
      this.running = undefined;
    });
    this.running = pass;
    return pass;
  }

  private async indexAll(): Promise<void> {
    for (;;) {
      const indexed = await this.handle.db.transaction().execute((trx) => indexPendingSubmissions(trx, ROWS_PER_CHUNK));
      if (indexed > 0) this.unmerged = true;
      if (indexed < ROWS_PER_CHUNK) return;
      await nextTurn();
    }
  }

  /**
   * The merge loop: one at a time, and a caller arriving meanwhile waits for the running one,
   * whose next pass takes the caller's rows.
   */
  private mergePending(): Promise<void> {
    if (!this.merging && this.unmerged && !this.closed.signal.aborted) this.merging = this.mergeSegments();
    return this.merging ?? Promise.resolve();
  }

  /**
   * Merges the index's segments in bounded steps, each its own transaction, paced by how long
   * each held the loop; chunks indexed meanwhile are merged in the loop's next pass. The loop
   * forgets itself right where it last finds nothing unmerged, with no await between, so a caller
   * that indexes after that check starts a loop of its own instead of joining one that has ended.
   * Its first await comes before any way out, so `merging` is always set by the time it is cleared.
   */
  private async mergeSegments(): Promise<void> {
    try {
      do {
        this.unmerged = false;
        await nextTurn();
        while (!this.closed.signal.aborted) {
          const started = performance.now();
          let more: boolean;
          try {
            more = await this.handle.db.transaction().execute((trx) => mergeSearchIndexStep(trx, MERGE_PAGES_PER_STEP));
          } catch (err) {
            this.unmerged = true; // the timer's retry merges again
            throw err;
          }
          if (!more) break;
          await this.pauseAfterMergeStep(performance.now() - started, this.closed.signal);
        }
      } while (this.unmerged && !this.closed.signal.aborted);
    } finally {
      this.merging = undefined;
    }
  }
}

