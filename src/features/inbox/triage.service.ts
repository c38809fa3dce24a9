import type { AuditService } from '../audit/audit.service.js';
import { onceMoreIfDeadlocked, type DatabaseHandle, type Trx } from '../../platform/db/database.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import { nowIso } from '../../platform/lib/time.js';
import type { OutboxQueue } from '../outbox/outbox.types.js';
import {
  clearSpamOfSubmissionRows,
  countUnreleasedSpamRows,
  filterSubmissionIdsOfAccount,
  findAccountIdsOfSubmissions,
  markSubmissionRowsSpam,
  releaseSpamSubmissionRows,
} from './triage.repository.js';

/** Whoever learns from the owner's marks (the learning filter), inside the marking transaction. */
export interface MarkLearner {
  learnFromMarks(trx: Trx, submissionIds: string[], spam: boolean): Promise<void>;
}

/** At most this many submissions in one bulk action (one page of the dashboard list and then some). */
export const MAX_MARK_BATCH = 200;

/**
 * The owner's spam triage (docs/spam-and-privacy.md). Marked spam: `isSpam` 1, reason `marked`. Marked
 * not spam: `isSpam` 0, reason null, and if its outbound work was never released, it is released
 * now, in the same transaction, exactly as the submit path would have: once, whatever the number
 * of times or places it is marked.
 */
export class SubmissionTriageService {
  constructor(
    private readonly handle: DatabaseHandle,
    private readonly outbound: Pick<OutboxQueue, 'queue' | 'committed'>,
    private readonly learner?: MarkLearner,
    private readonly audit?: AuditService,
  ) {}

  /**
   * Marks submissions of the account (any account when accountId is absent: the operator's CLI).
   * IDs that are not the account's are ignored. Returns the IDs that were marked, and the ones
   * released to the outbound channels by this call.
   */
  async markSubmissions(ids: string[], spam: boolean, accountId?: string): Promise<{ marked: string[]; released: string[] }> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_MARK_BATCH) {
      throw validationFailed('Too many submissions selected.', { ids: `at most ${MAX_MARK_BATCH} at a time` });
    }
    const owned = await filterSubmissionIdsOfAccount(this.handle.db, unique, accountId);
    if (owned.length === 0) return { marked: [], released: [] };
    // Run once more if PostgreSQL rolled it back to break a deadlock, as a deletion is: a mark that
    // meets one still marks instead of answering 500 (the cycle known with a submit statement, the
    // spam-change trigger's old counter order, is gone since migration 0018).
    const { released, queued } = await onceMoreIfDeadlocked(() => this.handle.db.transaction().execute(async (trx) => {
      // Every mark is a lesson, "not spam" on a submission that was not spam included (docs/bot-checks.md).
      await this.learner?.learnFromMarks(trx, owned, spam);
      for (const account of accountId ? [accountId] : await findAccountIdsOfSubmissions(trx, owned)) {
        await this.audit?.record(trx, account, 'submissions.marked', owned.length === 1 ? { type: 'submission', id: owned[0]! } : undefined, { as: spam ? 'spam' : 'not spam', count: owned.length });
      }
      if (spam) {
        await markSubmissionRowsSpam(trx, owned);
        return { released: [] as string[], queued: 0 };
      }
      const releasedIds = await releaseSpamSubmissionRows(trx, owned);
      await clearSpamOfSubmissionRows(trx, owned);
      // Released now, so it goes to the subscriptions that exist now, as a new submission would.
      const queuedCount = await this.outbound.queue(trx, releasedIds, { releasedAt: nowIso() });
      return { released: releasedIds, queued: queuedCount };
    }));
    if (queued > 0) this.outbound.committed();
    return { marked: owned, released };
  }

  /**
   * How many of the account's submissions among `ids` marking them not spam would send on now
   * (spam never released): what the dashboard says before it does so.
   */
  async countReleasable(ids: string[], accountId: string): Promise<number> {
    let n = 0;
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += 500) {
      const owned = await filterSubmissionIdsOfAccount(this.handle.db, unique.slice(i, i + 500), accountId);
      n += await countUnreleasedSpamRows(this.handle.db, owned);
    }
    return n;
  }

  /** One submission; not_found when it is not the account's. */
  async markSubmission(submissionId: string, spam: boolean, accountId?: string): Promise<void> {
    const { marked } = await this.markSubmissions([submissionId], spam, accountId);
    if (marked.length === 0) throw notFound('Submission');
  }
}
