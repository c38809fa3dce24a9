import type { Executor } from '../../platform/db/database.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import type { FormService } from '../forms/form.service.js';
import { countSubmissionRowsOfForm, findSubmissionRowById, findSubmissionRowOfAccount, listSubmissionRowsOfForm } from './submission-query.repository.js';
import { parseIsoInstant } from '../../platform/lib/time.js';
import type { ListFilters, SubmissionCursors } from './submission-cursor.js';
import type { SubmissionInboxService } from '../inbox/inbox.service.js';
import type { SubmissionTriage } from '../inbox/inbox.types.js';
import { submissionRowToSubmission, type Submission, type SubmissionPosition } from './submission.types.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** A submission with its team-inbox state: what the management API and the CLI show. */
export type TriagedSubmission = Submission & { triage: SubmissionTriage };

interface SubmissionPage {
  submissions: TriagedSubmission[];
  nextCursor: string | null;
}

interface ListOptions {
  limit?: number;
  cursor?: string;
  /** Only spam (true) or only non-spam (false); both when absent. */
  spam?: boolean;
  /** ISO 8601 bounds on createdAt, as the client sent them: since inclusive, until exclusive. */
  since?: string;
  until?: string;
}

function checkInstant(value: string | undefined, field: 'since' | 'until'): string | undefined {
  if (value === undefined) return undefined;
  const instant = parseIsoInstant(value);
  if (instant === undefined) {
    throw validationFailed(`The ${field} value is not valid.`, { [field]: 'must be an ISO 8601 date (2026-11-22) or date-time with a zone (2026-11-22T10:15:30Z)' });
  }
  return instant;
}

const sameFilters = (a: ListFilters, b: ListFilters) => a.spam === b.spam && a.since === b.since && a.until === b.until;

/** The management API's reading of stored submissions (and the CLI's), always scoped to the owning account. */
export class SubmissionQueryService {
  constructor(
    private readonly db: Executor,
    private readonly forms: FormService,
    private readonly cursors: SubmissionCursors,
    private readonly inbox: SubmissionInboxService,
  ) {}

  private async withTriage(submissions: Submission[]): Promise<TriagedSubmission[]> {
    const triage = await this.inbox.triageOf(submissions.map((s) => s.id));
    return submissions.map((s) => ({ ...s, triage: triage.get(s.id)! }));
  }

  async listSubmissions(accountId: string, formId: string, options: ListOptions = {}): Promise<SubmissionPage> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw validationFailed('The limit is not valid.', { limit: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
    }
    const since = checkInstant(options.since, 'since');
    const until = checkInstant(options.until, 'until');
    if (since !== undefined && until !== undefined && until <= since) {
      throw validationFailed('The until value is not after since.', { until: 'must be later than since' });
    }
    const given: ListFilters = {
      ...(options.spam === undefined ? {} : { spam: options.spam }),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
    };
    await this.forms.getFormOfAccount(accountId, formId);
    let after: SubmissionPosition | undefined;
    let filters = given;
    if (options.cursor !== undefined) {
      const read = await this.cursors.read(formId, options.cursor);
      if (!read) {
        throw validationFailed('The cursor is not valid.', { cursor: 'must be a nextCursor this API returned for this form' });
      }
      // The cursor pages on with the filters it was made with: a request may repeat them or leave
      // them out, but not change them (a page of another list is never what was meant).
      const anyGiven = options.spam !== undefined || options.since !== undefined || options.until !== undefined;
      if (anyGiven && !sameFilters(given, read.filters)) {
        throw validationFailed('The cursor was made with other filters.', { cursor: 'was made with other spam, since or until values: repeat them as they were, or leave them out' });
      }
      after = read.position;
      filters = read.filters;
    }
    // One row more than asked tells whether a next page exists without a second query.
    const rows = await listSubmissionRowsOfForm(this.db, formId, {
      limit: limit + 1,
      ...(after ? { after } : {}),
      ...(filters.spam === undefined ? {} : { isSpam: filters.spam ? 1 : 0 }),
      ...(filters.since === undefined ? {} : { since: filters.since }),
      ...(filters.until === undefined ? {} : { until: filters.until }),
    });
    const page = rows.slice(0, limit).map(submissionRowToSubmission);
    const last = page[page.length - 1];
    return { submissions: await this.withTriage(page), nextCursor: rows.length > limit && last ? await this.cursors.issue(formId, last, filters) : null };
  }

  async getSubmission(accountId: string, submissionId: string): Promise<TriagedSubmission> {
    const row = await findSubmissionRowOfAccount(this.db, accountId, submissionId);
    if (!row) throw notFound('Submission');
    return (await this.withTriage([submissionRowToSubmission(row)]))[0]!;
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
  async getSubmissionForOperator(submissionId: string): Promise<TriagedSubmission> {
    const row = await findSubmissionRowById(this.db, submissionId);
    if (!row) throw notFound('Submission');
    return (await this.withTriage([submissionRowToSubmission(row)]))[0]!;
  }

  async countSubmissions(accountId: string, formId: string, spam?: boolean): Promise<number> {
    await this.forms.getFormOfAccount(accountId, formId);
    return countSubmissionRowsOfForm(this.db, formId, spam === undefined ? undefined : spam ? 1 : 0);
  }
}
