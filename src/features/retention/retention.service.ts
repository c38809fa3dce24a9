import type { AuditService } from '../audit/audit.service.js';
import type { FastifyBaseLogger } from 'fastify';
import { onceMoreIfDeadlocked, type DatabaseHandle, type Trx } from '../../platform/db/database.js';
import { validationFailed } from '../../platform/errors.js';
import type { FormService } from '../forms/form.service.js';
import { isoMinus, nowIso } from '../../platform/lib/time.js';
import { pauseInProportion } from '../../platform/lib/yield.js';
import {
  deleteIdempotencyRecordsOfForm,
  deleteSubmissionRowsByIds,
  filterSubmissionIdsOfForm,
  scanSubmissionsOfAccount,
  selectSubmissionIdsOfForm,
} from './retention.repository.js';
import { parsePayload, type FieldValue } from '../submissions/submission.types.js';
import type { OutboxQueue } from '../outbox/outbox.types.js';
import type { FileService } from '../files/file.service.js';

/** The most rows deleted in one transaction (docs/spam-and-privacy.md). */
const MAX_DELETE_BATCH = 1000;
/**
 * better-sqlite3 is synchronous: a delete blocks the event loop (and the one connection) for its
 * whole duration: 20–40 µs a row with its indexes and cascades, more with the dashboard's search
 * and counter triggers. 25 rows keep that to a millisecond or two, so the submit p99 barely moves
 * while purging (docs/performance.md#retention-purge-pacing); PostgreSQL deletes off the event loop and row locks do not block inserts.
 */
const SQLITE_DELETE_BATCH = 25;
/** The most submissions the dashboard deletes in one request (a page of its list and then some). */
const MAX_BULK_IDS = 100;
/** After a batch that took d ms, wait PAUSE_FACTOR × d: deletions use at most a tenth of the time. */
const PAUSE_FACTOR = 9;
const DAY_MS = 24 * 60 * 60 * 1000;
const SCAN_PAGE = 500;

interface DeletionReport {
  deleted: number;
  /** Rows deleted by each transaction, in order (each at most the batch size). */
  batches: number[];
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

function valueEquals(value: FieldValue, lowered: string): boolean {
  if (Array.isArray(value)) return value.some((v) => valueEquals(v, lowered));
  return typeof value === 'string' && value.trim().toLowerCase() === lowered;
}

interface LifecycleOptions {
  /** How often the background purge runs (RETENTION_PURGE_INTERVAL_MS; default hourly). */
  purgeIntervalMs?: number;
  /** Rows per transaction, 1–1000 (default: 25 on SQLite, 1000 on PostgreSQL). */
  batchSize?: number;
  /** Pause after each batch, as a multiple of its duration (default 9; 0 only yields a turn). */
  pauseFactor?: number;
  /** Told after every completed purge (the Admin page's "last purge"); its failure is only logged. */
  onPurged?: (deleted: number) => Promise<void>;
  /** Records the owner's deletions and erasures (not the retention purge, Formgate's own doing). */
  audit?: AuditService;
  /** Removes the files of deleted submissions and forms, after their deletion committed. */
  files?: Pick<FileService, 'removeFilesOfSubmissions' | 'removeFilesOfForm'>;
}

/**
 * The one place submissions are deleted (docs/spam-and-privacy.md): the owner's delete from the
 * dashboard, the retention purge (background, at least hourly, and on demand), erasure by email
 * address, and deleting a form with everything it holds. Every deletion drops the submissions'
 * queued work first, in the dispatcher's lock order (deleteInBatches). Deletions run in transactions of at most `batchSize` rows and pause between them in
 * proportion to how long each took, so submissions keep being written at nearly full speed
 * while a large purge runs (`npm run bench -- --only purge`; docs/performance.md#retention-purge-pacing).
 */
export class SubmissionLifecycleService {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DeletionReport> | undefined;
  /**
   * Aborted by close(): a purge in progress stops after its current batch (the next run resumes
   * it), and the pause between batches is cut short.
   */
  private readonly closed = new AbortController();

  /** Rows deleted per transaction at most. */
  readonly batchSize: number;
  private readonly pauseFactor: number;
  private readonly purgeIntervalMs: number;
  private readonly onPurged: ((deleted: number) => Promise<void>) | undefined;
  private readonly audit: AuditService | undefined;
  private readonly files: LifecycleOptions['files'];

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly forms: FormService,
    private readonly outbox: Pick<OutboxQueue, 'drop'>,
    private readonly logger: FastifyBaseLogger,
    options: LifecycleOptions = {},
  ) {
    this.batchSize = options.batchSize ?? (handle.dialect === 'sqlite' ? SQLITE_DELETE_BATCH : MAX_DELETE_BATCH);
    this.pauseFactor = options.pauseFactor ?? PAUSE_FACTOR;
    this.purgeIntervalMs = options.purgeIntervalMs ?? 60 * 60 * 1000;
    this.onPurged = options.onPurged;
    this.audit = options.audit;
    this.files = options.files;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > MAX_DELETE_BATCH) {
      throw new Error(`batch size must be 1..${MAX_DELETE_BATCH}`);
    }
  }

  /** Runs the purge now and then every purgeIntervalMs (an hour by default). */
  start(): void {
    const run = () => {
      void this.purgeExpiredSubmissions().catch((err: unknown) => this.logger.warn({ err }, 'retention purge failed'));
    };
    run();
    this.timer = setInterval(run, this.purgeIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed.abort();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Deletes every submission older than its form's retention period. One purge at a time per process. */
  purgeExpiredSubmissions(now = nowIso()): Promise<DeletionReport> {
    this.running ??= this.purge(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async purge(now: string): Promise<DeletionReport> {
    const report: DeletionReport = { deleted: 0, batches: [] };
    for (const { formId, days } of await this.forms.listRetentionPeriods()) {
      if (this.closed.signal.aborted) break;
      const before = isoMinus(now, days * DAY_MS);
      await this.deleteInBatches(report, (trx, limit) => (this.closed.signal.aborted ? Promise.resolve([]) : selectSubmissionIdsOfForm(trx, formId, limit, before)));
    }
    if (report.deleted > 0) this.logger.info({ deleted: report.deleted, transactions: report.batches.length }, 'retention purge deleted submissions');
    if (!this.closed.signal.aborted) await this.onPurged?.(report.deleted).catch((err: unknown) => this.logger.warn({ err }, 'recording the purge failed'));
    return report;
  }

  /**
   * Erasure: deletes every submission of the account's forms with a field value equal to the
   * address (case-insensitive; array values count by element), with its queued work.
   */
  async eraseByEmail(accountId: string, email: string): Promise<DeletionReport> {
    // The event counts what was erased, never the address (the person asked to be forgotten).
    return this.deleteListed(await this.submissionIdsWithEmail(accountId, email), (trx, deleted) =>
      this.audit?.record(trx, accountId, 'submissions.erased', undefined, { count: deleted }) ?? Promise.resolve(),
    );
  }

  /** How many submissions erasure would delete: the dashboard shows it before anything goes. */
  async countByEmail(accountId: string, email: string): Promise<number> {
    return (await this.submissionIdsWithEmail(accountId, email)).length;
  }

  private async submissionIdsWithEmail(accountId: string, email: string): Promise<string[]> {
    const address = email.trim().toLowerCase();
    if (!EMAIL.test(address) || address.length > 320) throw validationFailed('Enter an email address.', { email: 'must be an email address' });
    // The LIKE pre-filter is exact only for plain ASCII that JSON does not escape; otherwise scan.
    const needle = /^[\x20-\x7e]+$/.test(address) && !/["\\]/.test(address) ? address : undefined;
    const matching: string[] = [];
    let afterId = '';
    for (;;) {
      const page = await scanSubmissionsOfAccount(this.handle.db, accountId, { afterId, limit: SCAN_PAGE, ...(needle ? { needle } : {}) });
      for (const row of page) {
        if (Object.values(parsePayload(row.payload)).some((value) => valueEquals(value, address))) matching.push(row.id);
      }
      if (page.length < SCAN_PAGE) break;
      afterId = page[page.length - 1]!.id;
    }
    return matching;
  }

  /**
   * The owner's delete from the dashboard: the chosen submissions of one form (IDs of other forms
   * are left alone). Returns how many were deleted.
   */
  async deleteSubmissions(accountId: string, formId: string, ids: string[]): Promise<number> {
    await this.forms.getFormOfAccount(accountId, formId);
    if (ids.length === 0) throw validationFailed('Select at least one submission.', { ids: 'Select at least one submission' });
    if (ids.length > MAX_BULK_IDS) throw validationFailed(`Select at most ${MAX_BULK_IDS} submissions at once.`, { ids: `at most ${MAX_BULK_IDS}` });
    const ofForm = await filterSubmissionIdsOfForm(this.handle.db, formId, [...new Set(ids)]);
    const target = ofForm.length === 1 ? { type: 'submission', id: ofForm[0]! } : { type: 'form', id: formId };
    return (
      await this.deleteListed(ofForm, (trx, deleted) => this.audit?.record(trx, accountId, 'submissions.deleted', target, { formId, count: deleted }) ?? Promise.resolve())
    ).deleted;
  }

  /** Deletes the listed submissions; `record` writes the audit event of each batch in the batch's transaction. */
  private async deleteListed(ids: string[], record?: (trx: Trx, deleted: number) => Promise<void>): Promise<DeletionReport> {
    const report: DeletionReport = { deleted: 0, batches: [] };
    await this.deleteInBatches(report, async (_trx, limit, taken) => ids.slice(taken, taken + limit), record);
    return report;
  }

  /**
   * Deletes a form and everything it holds: submissions (in batches), then, in one transaction,
   * its idempotency records, hooks with their deliveries, queued work and the form itself.
   */
  async deleteForm(formId: string, accountId?: string): Promise<DeletionReport> {
    const form = accountId ? await this.forms.getFormOfAccount(accountId, formId) : await this.forms.getForm(formId);
    const report: DeletionReport = { deleted: 0, batches: [] };
    await this.deleteInBatches(report, (trx, limit) => selectSubmissionIdsOfForm(trx, form.id, limit));
    await this.handle.db.transaction().execute(async (trx) => {
      // Submissions that arrived meanwhile go with the form (the foreign key's cascade; on
      // PostgreSQL the forms trigger of migration 0015); their queued work is
      // dropped first, in the dispatcher's lock order, as in every batch.
      await this.outbox.drop(trx, await selectSubmissionIdsOfForm(trx, form.id, MAX_DELETE_BATCH));
      await deleteIdempotencyRecordsOfForm(trx, form.id);
      await this.forms.deleteFormInTransaction(trx, form.id);
    });
    await this.removeFiles(() => this.files?.removeFilesOfForm(form.id));
    return report;
  }

  /**
   * Deletes every form of an account the way `deleteForm` does, so that deleting the account
   * afterwards cascades over no submission: a cascade would lock rows out of the dispatcher's order.
   */
  async deleteFormsOfAccount(accountId: string): Promise<DeletionReport> {
    const report: DeletionReport = { deleted: 0, batches: [] };
    for (const form of await this.forms.listForms(accountId)) {
      const one = await this.deleteForm(form.id, accountId);
      report.deleted += one.deleted;
      report.batches.push(...one.batches);
    }
    return report;
  }

  /**
   * Deletes the IDs `nextIds` hands out, one transaction per call, until it hands out fewer than a
   * batch. Each transaction drops the submissions' queued work before the submissions: row locks
   * are then taken in the dispatcher's order (outbox row, then submission), so a deletion waits
   * for an expansion in progress instead of deadlocking with it on PostgreSQL. `nextIds` is told
   * how many IDs earlier transactions took: a transaction that rolled back took none.
   */
  private async deleteInBatches(
    report: DeletionReport,
    nextIds: (trx: Trx, limit: number, taken: number) => Promise<string[]>,
    record?: (trx: Trx, deleted: number) => Promise<void>,
  ): Promise<void> {
    let takenSoFar = 0;
    for (;;) {
      const started = performance.now();
      const { taken, deleted } = await this.deleteOneBatch((trx, limit) => nextIds(trx, limit, takenSoFar), record);
      takenSoFar += taken;
      if (taken === 0) return;
      report.deleted += deleted;
      report.batches.push(deleted);
      // A short batch was the last: no pause (the dashboard answers at once), no empty transaction.
      if (taken < this.batchSize) return;
      // Closing: no pause (it returns at once); erasure and deletions finish, a purge's next batch is empty.
      await pauseInProportion(performance.now() - started, { factor: this.pauseFactor, signal: this.closed.signal });
    }
  }

  /**
   * One batch's transaction, run once more if PostgreSQL rolled it back to break a deadlock, as
   * the writer does for a submit statement that lost. The one cycle known with a submit statement
   * (the delete trigger holding a total while it went for the next hour's row) is gone since
   * migration 0018; a deletion that meets another still deletes instead of answering 500.
   */
  private async deleteOneBatch(nextIds: (trx: Trx, limit: number) => Promise<string[]>, record?: (trx: Trx, deleted: number) => Promise<void>): Promise<{ taken: number; deleted: number }> {
    const batch = await onceMoreIfDeadlocked(() =>
      this.handle.db.transaction().execute(async (trx) => {
        const ids = await nextIds(trx, this.batchSize);
        if (ids.length === 0) return { taken: 0, deleted: 0, ids };
        await this.outbox.drop(trx, ids);
        const deleted = await deleteSubmissionRowsByIds(trx, ids);
        if (deleted > 0) await record?.(trx, deleted);
        return { taken: ids.length, deleted, ids };
      }),
    );
    // After the commit: a file is never removed while its submission's row stays.
    if (batch.deleted > 0) await this.removeFiles(() => this.files?.removeFilesOfSubmissions(batch.ids));
    return { taken: batch.taken, deleted: batch.deleted };
  }

  /** A failure to remove files fails no deletion: the rows stay behind and the file sweeper removes them later. */
  private async removeFiles(remove: () => Promise<void> | undefined): Promise<void> {
    try {
      await remove();
    } catch (err) {
      this.logger.warn({ err }, 'removing the files of deleted submissions failed; the sweeper removes them later');
    }
  }
}
