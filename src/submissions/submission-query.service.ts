import type { Executor } from '../db/database.js';
import { notFound, validationFailed } from '../errors.js';
import { yieldToWaitingWork } from '../lib/yield.js';
import type { FormService } from '../forms/form.service.js';
import {
  countSubmissionRowsOfForm,
  deleteSubmissionRow,
  findSubmissionRowById,
  findSubmissionRowOfAccount,
  exportRowToExportedSubmission,
  listExportPayloadsOfForm,
  listExportRowsOfForm,
  listSubmissionRowsOfForm,
  submissionRowToSubmission,
  type SubmissionPosition,
} from './submission-query.repository.js';
import type { SubmissionCursors } from './submission-cursor.js';
import { parsePayload, type ExportedSubmission, type Submission } from './submission.types.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
/** Rows per query of an export: ~1–2 ms of work per page, few enough round trips. */
const EXPORT_PAGE_SIZE = 250;

export interface SubmissionPage {
  submissions: Submission[];
  nextCursor: string | null;
}

export interface ListOptions {
  limit?: number;
  cursor?: string;
  /** Only spam (true) or only non-spam (false); both when absent. */
  spam?: boolean;
}

/** Reading and deleting stored submissions, always scoped to the owning account. */
export class SubmissionQueryService {
  constructor(
    private readonly db: Executor,
    private readonly forms: FormService,
    private readonly cursors: SubmissionCursors,
  ) {}

  async listSubmissions(accountId: string, formId: string, options: ListOptions = {}): Promise<SubmissionPage> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw validationFailed('The limit is not valid.', { limit: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
    }
    await this.forms.getFormOfAccount(accountId, formId);
    let after: SubmissionPosition | undefined;
    if (options.cursor !== undefined) {
      after = await this.cursors.read(formId, options.cursor);
      if (!after) {
        throw validationFailed('The cursor is not valid.', { cursor: 'must be a nextCursor this API returned for this form' });
      }
    }
    // One row more than asked tells whether a next page exists without a second query.
    const rows = await listSubmissionRowsOfForm(this.db, formId, {
      limit: limit + 1,
      ...(after ? { after } : {}),
      ...(options.spam === undefined ? {} : { isSpam: options.spam ? 1 : 0 }),
    });
    const page = rows.slice(0, limit).map(submissionRowToSubmission);
    const last = page[page.length - 1];
    return { submissions: page, nextCursor: rows.length > limit && last ? await this.cursors.issue(formId, last) : null };
  }

  /**
   * Every submission of an owned form, newest first, in pages of `pageSize` for an export. The
   * form is checked once and pages follow each other by position (no cursors to sign).
   */
  async *exportPages(accountId: string, formId: string, pageSize = EXPORT_PAGE_SIZE): AsyncGenerator<ExportedSubmission[]> {
    await this.forms.getFormOfAccount(accountId, formId);
    const pages = pagesByPosition((after) => listExportRowsOfForm(this.db, formId, { limit: pageSize, ...(after ? { after } : {}) }), pageSize);
    for await (const rows of pages) yield rows.map(exportRowToExportedSubmission);
  }

  /**
   * The field names of an owned form's submissions in order of first appearance, newest
   * submission first: a CSV export's columns. Reads only the payloads, page by page.
   */
  async exportFieldNames(accountId: string, formId: string, pageSize = EXPORT_PAGE_SIZE): Promise<string[]> {
    await this.forms.getFormOfAccount(accountId, formId);
    const names = new Set<string>();
    const pages = pagesByPosition((after) => listExportPayloadsOfForm(this.db, formId, { limit: pageSize, ...(after ? { after } : {}) }), pageSize);
    for await (const rows of pages) for (const row of rows) for (const name of Object.keys(parsePayload(row.payload))) names.add(name);
    return [...names];
  }

  async getSubmission(accountId: string, submissionId: string): Promise<Submission> {
    const row = await findSubmissionRowOfAccount(this.db, accountId, submissionId);
    if (!row) throw notFound('Submission');
    return submissionRowToSubmission(row);
  }

  /** Any account's submission: for the operator's CLI only. */
  async getSubmissionForOperator(submissionId: string): Promise<Submission> {
    const row = await findSubmissionRowById(this.db, submissionId);
    if (!row) throw notFound('Submission');
    return submissionRowToSubmission(row);
  }

  async countSubmissions(accountId: string, formId: string, spam?: boolean): Promise<number> {
    await this.forms.getFormOfAccount(accountId, formId);
    return countSubmissionRowsOfForm(this.db, formId, spam === undefined ? undefined : spam ? 1 : 0);
  }

  async deleteSubmission(accountId: string, submissionId: string): Promise<void> {
    await this.getSubmission(accountId, submissionId);
    await deleteSubmissionRow(this.db, submissionId);
  }
}

/**
 * Reads a whole form page by page, newest first, by position. The next page is asked for as
 * soon as a page arrives, so on PostgreSQL its query runs while this page is formatted and sent.
 * Between two pages the event loop runs what is waiting, and under load sits out more turns
 * (yieldToWaitingWork): on SQLite each page is read synchronously, and an export of a million
 * rows must not take the loop from the submissions.
 */
async function* pagesByPosition<Row extends { created_at: string; id: string }>(
  read: (after: SubmissionPosition | undefined) => Promise<Row[]>,
  pageSize: number,
): AsyncGenerator<Row[]> {
  let next = read(undefined);
  try {
    for (;;) {
      const rows = await next;
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!;
      const more = rows.length === pageSize;
      if (more) next = read({ createdAt: last.created_at, id: last.id });
      yield rows;
      if (!more) return;
      await yieldToWaitingWork();
    }
  } finally {
    // A download cut short leaves the read ahead unawaited: its failure is of no interest.
    next.catch(() => {});
  }
}
