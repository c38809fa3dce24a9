import { setImmediate as nextTurn } from 'node:timers/promises';

/** Form IDs read per query of a full load. */
export const DIRECTORY_PAGE = 5000;
/**
 * How far back an incremental read looks, before the previous read's start: a form's createdAt
 * is its creating instance's clock, set before its transaction commits, so a read by created_at
 * must overlap the previous one by more than any commit takes and any clock skew between instances.
 */
export const DIRECTORY_OVERLAP_MS = 10 * 60_000;
/** A full load again after this long in use: whatever a skewed clock hid from the incremental reads is found. */
export const DIRECTORY_FULL_LOAD_MS = 10 * 60_000;

/** Where the directory reads form IDs (form.repository.ts). */
export interface FormIdSource {
  /** Up to `limit` IDs in ID order, after `afterId` (from the start when undefined). */
  idsAfter(afterId: string | undefined, limit: number): Promise<string[]>;
  /** The IDs of forms whose createdAt is at or after `since` (an ISO instant). */
  idsCreatedSince(since: string): Promise<string[]>;
}

/** 30 bits of FNV-1a: small integers, which a Set keeps without a heap object each. */
function hashOf(formId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < formId.length; i++) hash = Math.imul(hash ^ formId.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

/**
 * Which form IDs can exist, so the submit path refuses an invented one without a query or a
 * cache entry (a flood of new IDs would cost a batched read each and fill the negative cache;
 * docs/performance.md#the-negative-cache-of-unknown-form-ids). It keeps a 30-bit hash of every
 * form's ID (~20 bytes a form): an ID whose hash is absent names no form; one whose hash is present
 * may (deleted forms stay, and 1 in ~10^9 / forms collides) and goes the cache's way.
 *
 * It answers only while fresh, for `ttlMs` (the form cache's second) after the start of its
 * last read; then the next lookup starts a read and goes the cache's way until it is done. A form
 * created through this instance is added when it is made; one created through another instance
 * (or the CLI) is seen within `ttlMs` of its commit. Loaded at the first lookup the form cache
 * cannot answer (an unknown ID, or a real form whose cached second is up), a page at a time, so
 * an idle server holds nothing and a large table does not stall the loop; then read again at
 * most once a second while such lookups come (one query on forms_created_idx).
 */
export class FormDirectory {
  private hashes: Set<number> | undefined;
  /** Clock time at the start of the last completed read; the answers hold for ttlMs from it. */
  private readStartedAt = Number.NEGATIVE_INFINITY;
  private fullLoadStartedAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly source: FormIdSource,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
    /** A read that failed: the directory stays stale and answers nothing until one succeeds. */
    private readonly onReadFailed: (error: unknown) => void = () => {},
  ) {}

  /**
   * True when no form has this ID as of the last read (less than ttlMs ago); false when one may,
   * or when the directory cannot tell yet (it then starts a read for the lookups after this one).
   */
  excludes(formId: string): boolean {
    if (this.clock() - this.readStartedAt >= this.ttlMs || this.hashes === undefined) {
      this.refresh();
      return false;
    }
    return !this.hashes.has(hashOf(formId));
  }

  /** A form made through this instance: known at once. */
  add(formId: string): void {
    this.hashes?.add(hashOf(formId));
  }

  /** Reads what changed since the last read (all of it the first time); one read at a time. */
  refresh(): Promise<void> {
    this.reading ??= this.read()
      .catch((error: unknown) => this.onReadFailed(error))
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  private async read(): Promise<void> {
    const startedAt = this.clock();
    if (this.hashes === undefined || startedAt - this.fullLoadStartedAt >= DIRECTORY_FULL_LOAD_MS) {
      const hashes = new Set<number>();
      for (let after: string | undefined; ; ) {
        const ids = await this.source.idsAfter(after, DIRECTORY_PAGE);
        for (const id of ids) hashes.add(hashOf(id));
        if (ids.length < DIRECTORY_PAGE) break;
        after = ids[ids.length - 1];
        // SQLite's reads are synchronous: the requests waiting meanwhile are served between pages.
        await nextTurn();
      }
      // Forms added through this instance during the load, if it replaced a directory in use.
      if (this.hashes) for (const hash of this.hashes) hashes.add(hash);
      this.hashes = hashes;
      this.fullLoadStartedAt = startedAt;
    } else {
      const since = new Date(this.readStartedAt - DIRECTORY_OVERLAP_MS).toISOString();
      for (const id of await this.source.idsCreatedSince(since)) this.hashes.add(hashOf(id));
    }
    this.readStartedAt = startedAt;
  }
}
