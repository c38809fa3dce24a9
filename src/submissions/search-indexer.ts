import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import { countPendingSearchRows, indexPendingSubmissions, mergeSearchIndexStep } from './submission-search.repository.js';

/** How long new submissions gather before they are indexed: large batches are what make FTS5 cheap. */
export const SEARCH_INDEX_DELAY_MS = 200;
/**
 * Rows per indexing transaction (~5 ms of the event loop); the next chunk waits for the loop's
 * other work. Smaller chunks were measured and lost: 250 lowered the plain submit p99 but put the
 * p99 during a retention purge past its target, 500 was no better on either (bench/ANALYSIS.md,
 * issue 30, stops 37–38).
 */
const ROWS_PER_CHUNK = 1000;
/**
 * Pages written per merge step (migration 0017): ~1–5 ms a step, where FTS5's own merge inside a
 * chunk took 15–25 ms (bench/ANALYSIS.md, stop 47). A word's entries are merged whole, so a step
 * over large segments of a very common word (the form's filter words) can take 30–70 ms.
 */
const MERGE_PAGES_PER_STEP = 64;

/**
 * SQLite's search index, kept off the submit transaction (migration 0012): after a commit the
 * new submissions wait up to SEARCH_INDEX_DELAY_MS and are then indexed in one transaction per
 * chunk. A search first indexes whatever is still waiting, so what the dashboard shows never
 * lags; the delay bounds when a submission becomes findable otherwise (a second at most,
 * tested). Rows left waiting by a crash are indexed at the next start. The index's segments are
 * merged after the chunks, in steps (migration 0017). On PostgreSQL every method is a no-op: the
 * GIN index is maintained by the insert.
 */
export class SearchIndexer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Rows were indexed since the last merge (a search's catch-up leaves the merging to a pass of the timer). */
  private unmerged = false;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
  ) {}

  private get enabled(): boolean {
    return this.handle.dialect === 'sqlite' && !this.stopped;
  }

  /** After submissions were committed: index them shortly. */
  wake(): void {
    if (!this.enabled || this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.indexPending().catch((err: unknown) => {
        this.logger.warn({ err }, 'search indexing failed; retrying');
        this.wake();
      });
    }, SEARCH_INDEX_DELAY_MS);
    this.timer.unref();
  }

  /**
   * Indexes everything waiting now; resolves once it is searchable. `merge: false` (a search
   * waiting on it) leaves merging the index's segments to a pass of the timer, woken for it.
   */
  async indexPending(options: { merge?: boolean } = {}): Promise<void> {
    if (this.handle.dialect !== 'sqlite') return;
    // One pass at a time; a caller arriving meanwhile waits for it, then indexes what came after.
    while (this.running) await this.running;
    this.running = this.indexAll(options.merge ?? true).finally(() => {
      this.running = undefined;
      if (this.unmerged) this.wake();
    });
    await this.running;
  }

  async countPending(): Promise<number> {
    return this.handle.dialect === 'sqlite' ? countPendingSearchRows(this.handle.db) : 0;
  }

  /** Start: what a crash left waiting. */
  start(): void {
    this.wake();
  }

  /** Stops the timer and indexes what is waiting (what a crash would leave, the next start indexes). */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.indexPending().catch((err: unknown) => this.logger.warn({ err }, 'search indexing at shutdown failed'));
  }

  private async indexAll(merge: boolean): Promise<void> {
    for (;;) {
      const indexed = await this.handle.db.transaction().execute((trx) => indexPendingSubmissions(trx, ROWS_PER_CHUNK));
      if (indexed > 0) this.unmerged = true;
      if (merge && this.unmerged) {
        await this.mergeSegments();
        this.unmerged = false;
      }
      if (indexed < ROWS_PER_CHUNK) return;
      await yieldToEventLoop();
    }
  }

  /** Merges the index's segments in bounded steps, each its own transaction, with the loop's work between. */
  private async mergeSegments(): Promise<void> {
    for (;;) {
      await yieldToEventLoop();
      if (!(await this.handle.db.transaction().execute((trx) => mergeSearchIndexStep(trx, MERGE_PAGES_PER_STEP)))) return;
    }
  }
}

const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));
