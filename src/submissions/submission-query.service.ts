import type { Executor } from '../db/database.js';
import { notFound, validationFailed } from '../errors.js';
import type { FormService } from '../forms/form.service.js';
import { countSubmissionRowsOfForm, findSubmissionRowById, findSubmissionRowOfAccount, listSubmissionRowsOfForm } from './submission-query.repository.js';
import type { SubmissionCursors } from './submission-cursor.js';
import { submissionRowToSubmission, type Submission, type SubmissionPosition } from './submission.types.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

interface SubmissionPage {
  submissions: Submission[];
  nextCursor: string | null;
}

interface ListOptions {
  limit?: number;
  cursor?: string;
  /** Only spam (true) or only non-spam (false); both when absent. */
  spam?: boolean;
}

/** The management API's reading of stored submissions (and the CLI's), always scoped to the owning account. */
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

  async getSubmission(accountId: string, submissionId: string): Promise<Submission> {
    const row = await findSubmissionRowOfAccount(this.db, accountId, submissionId);
    if (!row) throw notFound('Submission');
    return submissionRowToSubmission(row);
  }

  /**
   * The form's submission when it arrived at most `maxAgeMs` ago, else undefined: for the hosted
   * thank-you page, which names the visitor's own fields shortly after they sent them.
   */
  async findRecentSubmissionOfForm(form: { id: string; accountId: string }, submissionId: string, maxAgeMs: number): Promise<Submission | undefined> {
    const row = await findSubmissionRowOfAccount(this.db, form.accountId, submissionId);
    if (!row || row.form_id !== form.id || Date.now() - Date.parse(row.created_at) > maxAgeMs) return undefined;
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
}
