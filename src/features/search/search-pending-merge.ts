import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { mergePendingSearchEntries } from './search.repository.js';

/**
 * How long after a commit PostgreSQL's search index has its pending list merged, at most once
 * per interval on each instance. Left alone, the list grows to `gin_pending_list_limit` (4 MB,
 * ~20,000 submissions) and the insert that overflows it merges all of it inside a submit batch,
 * with `work_mem`: a slow second every ~50 s at 400 submissions/s. Merged here, on a connection of
 * its own with `maintenance_work_mem`, about a second's rows at a time, no submit batch carries a
 * merge unless a second brings more than the list holds (an estimate: no benchmark reaches that
 * rate), and searches scan a short list (docs/performance.md#search-indexing-after-the-commit).
 */
export const PENDING_LIST_MERGE_DELAY_MS = 1000;

/** PostgreSQL's `insufficient_privilege`: the database role does not own the index. */
const NOT_THE_OWNER = '42501';

export interface PendingListMergerOptions {
  /** Tests pass a shorter delay. */
  delayMs?: number;
}

/**
 * Merges PostgreSQL's search index's pending list a moment after submissions were committed.
 * What it merges, the next insert would have: a merge that fails is logged and tried again after
 * the next commit, and a role that may not merge (it does not own the index) leaves merging to
 * the inserts, as before, after one warning.
 */
export class PendingListMerger {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private disabled = false;
  private readonly delayMs: number;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
    options: PendingListMergerOptions = {},
  ) {
    this.delayMs = options.delayMs ?? PENDING_LIST_MERGE_DELAY_MS;
  }

  /** A merge is waiting for its delay or running. */
  get due(): boolean {
    return this.timer !== undefined || this.running !== undefined;
  }

  /** After a commit: a merge within the delay, unless one is already due or running. */
  wake(): void {
    if (this.timer || this.running || this.closed || this.disabled || this.handle.dialect !== 'postgres') return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.merge().finally(() => {
        this.running = undefined;
      });
    }, this.delayMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a merge under way: what is left, the inserts or the next start merge. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async merge(): Promise<void> {
    try {
      await mergePendingSearchEntries(this.handle.db);
    } catch (err) {
      if ((err as { code?: string }).code === NOT_THE_OWNER) {
        this.disabled = true;
        this.logger.warn({ err }, "the search index's pending list is left to the inserts to merge: the database role does not own submissions_search_idx");
        return;
      }
      this.logger.warn({ err }, "merging the search index's pending list failed; the next commit tries again");
    }
  }
}
