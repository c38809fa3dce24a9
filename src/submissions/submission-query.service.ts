import type { Executor } from '../db/database.js';
import { notFound, validationFailed } from '../errors.js';
import type { FormService } from '../forms/form.service.js';
import {
  countSubmissionRowsOfForm,
  deleteSubmissionRow,
  findSubmissionRowById,
  findSubmissionRowOfAccount,
  listSubmissionRowsOfForm,
  submissionRowToSubmission,
  type SubmissionPosition,
} from './submission-query.repository.js';
import type { Submission } from './submission.types.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Opaque to clients: base64url of the last row's [createdAt, id]. */
export function encodeCursor(position: SubmissionPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

/** Undefined for anything this API did not hand out. */
export function decodeCursor(cursor: string): SubmissionPosition | undefined {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      ISO_MS.test(value[0]) &&
      typeof value[1] === 'string' &&
      /^sub_[0-9A-Za-z]{1,64}$/.test(value[1])
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // not JSON: fall through
  }
  return undefined;
}

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
  ) {}

  async listSubmissions(accountId: string, formId: string, options: ListOptions = {}): Promise<SubmissionPage> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw validationFailed('The limit is not valid.', { limit: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
    }
    let after: SubmissionPosition | undefined;
    if (options.cursor !== undefined) {
      after = decodeCursor(options.cursor);
      if (!after) throw validationFailed('The cursor is not valid.', { cursor: 'must be a nextCursor returned by this API' });
    }
    await this.forms.getFormOfAccount(accountId, formId);
    // One row more than asked tells whether a next page exists without a second query.
    const rows = await listSubmissionRowsOfForm(this.db, formId, {
      limit: limit + 1,
      ...(after ? { after } : {}),
      ...(options.spam === undefined ? {} : { isSpam: options.spam ? 1 : 0 }),
    });
    const page = rows.slice(0, limit).map(submissionRowToSubmission);
    const last = page[page.length - 1];
    return { submissions: page, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
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
