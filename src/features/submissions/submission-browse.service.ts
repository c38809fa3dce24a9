import type { AuditService } from '../audit/audit.service.js';
import type { Dialect, Executor } from '../../platform/db/database.js';
import { validationFailed } from '../../platform/errors.js';
import type { FormService } from '../forms/form.service.js';
import { localDay, nextCalendarDay, startOfLocalDay, UTC } from '../../platform/lib/time-zone.js';
import { yieldToWaitingWork } from '../../platform/lib/yield.js';
import {
  browseSubmissionRows,
  countMatching,
  countSubmissionsInRanges,
  listHourlyCounts,
  listFormOverviewRows,
  listMatchingIds,
  type BrowsePosition,
  type BrowseRow,
} from './submission-browse.repository.js';
import { exportRowToExportedSubmission, listExportPayloadsOfForm, listExportRowsOfForm } from './submission-export.repository.js';
import { checkDays, decodePosition, encodePosition, filterOf, searchWords } from './submission-browse.filters.js';
import type { SubmissionInboxService } from '../inbox/inbox.service.js';
import type { TriageFilter } from '../inbox/inbox.types.js';
import { parsePayload, submissionRowToSubmission, type DailyCount, type ExportedSubmission, type Submission, type SubmissionPosition } from './submission.types.js';
import type { SearchIndexer } from '../search/search.service.js';

export const BROWSE_PAGE_SIZE = 50;
/**
 * Rows per query of an export. SQLite reads a page synchronously: 250 rows, ~1–2 ms of the event
 * loop. PostgreSQL's next page is read while this one is formatted: 1,000 rows a page, a quarter
 * of the round trips and query builds, and a faster export (docs/performance.md#export-pacing).
 */
const EXPORT_PAGE_SIZE: Record<Dialect, number> = { sqlite: 250, postgres: 1000 };
/**
 * Rows handed on (parsed, formatted, written) in one turn of the event loop, whatever the page
 * size: a 1,000-row PostgreSQL page formatted at once holds the loop ~4 ms (at 230k rows/s on a
 * fast 2-core machine), four times a SQLite page's turn.
 */
export const EXPORT_SLICE_ROWS = 250;

/** An export of what the list shows: the same filters as the page. */
export type ExportFilter = Pick<BrowseInput, 'q' | 'spam' | 'from' | 'to' | 'timeZone' | 'triage'>;

/** A search's total is counted this far ("more than 10,000" beyond), and "all matching" acts on at most this many. */
export const MAX_MATCHING = 10_000;

/** Rows per search page of a filtered export (the search's own paging). */
const FILTERED_EXPORT_PAGE = 100;

interface BrowseInput {
  q?: string;
  spam?: boolean;
  /** YYYY-MM-DD, days in `timeZone`, both inclusive. */
  from?: string;
  to?: string;
  /** ISO 8601 instants, checked by the caller: since inclusive, until exclusive (the API's bounds). */
  since?: string;
  until?: string;
  /** The viewer's IANA time zone, already checked (default UTC). */
  timeZone?: string;
  /** Read or unread, open or done, assignee, tag. */
  triage?: TriageFilter;
  cursor?: string;
  direction?: 'older' | 'newer';
  limit?: number;
}

export interface BrowsePage {
  submissions: Submission[];
  olderCursor: string | null;
  newerCursor: string | null;
  /** The words searched for (empty: a plain list). */
  words: string[];
}

interface FormSummary {
  inbox: number;
  spam: number;
  /** Inbox submissions nobody has opened or marked read. */
  unread: number;
  /** Inbox submissions not marked done. */
  open: number;
  lastSubmissionAt: string | null;
}

const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** `YYYY-MM-DDTHH`: the key of form_hourly_counts for the hour an instant falls in. */
const hourKey = (ms: number) => iso(ms).slice(0, 13);
const hourOfKey = (key: string) => Date.parse(`${key}:00:00.000Z`);

/** The dashboard's reading of a form's submissions: search, filters, paging both ways, overview, export. */
export class SubmissionBrowseService {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    private readonly forms: FormService,
    /** The team inbox: how many of a form's submissions are read and done. */
    private readonly inbox: Pick<SubmissionInboxService, 'countTriaged'>,
    private readonly searchIndex: SearchIndexer,
    private readonly audit?: AuditService,
  ) {}

  /** An export leaves the dashboard with the form's submissions: the audit log says who took them. */
  async recordExport(accountId: string, formId: string, format: 'csv' | 'ndjson', filtered: boolean): Promise<void> {
    const form = await this.forms.findForm(formId);
    await this.audit?.record(this.db, accountId, 'submissions.exported', { type: 'form', id: formId, ...(form ? { label: form.name } : {}) }, { format, filtered });
  }

  async browse(accountId: string, formId: string, input: BrowseInput): Promise<BrowsePage> {
    await this.forms.getFormOfAccount(accountId, formId);
    const { from, to } = checkDays(input);
    let position: BrowsePosition | undefined;
    if (input.cursor) {
      position = decodePosition(input.cursor);
      if (!position) throw validationFailed('That page link is not valid.', { cursor: 'Start again from the first page' });
    }
    const words = searchWords(input.q);
    const limit = input.limit ?? BROWSE_PAGE_SIZE;
    const direction = input.direction ?? 'older';
    // A search sees every committed submission, including those the indexer has not reached yet;
    // it does not wait for the index's segments to be merged.
    if (words.length > 0) await this.searchIndex.indexPending({ merge: false });
    const rows = await browseSubmissionRows(this.db, this.dialect, {
      ...filterOf(formId, words, input, from, to),
      limit: limit + 1,
      direction,
      ...(position ? { position } : {}),
    });
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    if (direction === 'newer') page.reverse();
    const positionOf = (row: BrowseRow): BrowsePosition =>
      row.search_rowid !== undefined && row.search_rowid !== null ? { rowid: Number(row.search_rowid) } : { createdAt: row.created_at, id: row.id };
    const first = page[0];
    const last = page[page.length - 1];
    const hasOlder = direction === 'older' ? more : position !== undefined;
    const hasNewer = direction === 'newer' ? more : position !== undefined;
    return {
      submissions: page.map(submissionRowToSubmission),
      olderCursor: hasOlder && last ? encodePosition(positionOf(last)) : null,
      newerCursor: hasNewer && first ? encodePosition(positionOf(first)) : null,
      words,
    };
  }

  /**
   * How many submissions the list's filter matches, counted up to MAX_MATCHING (more: the
   * answer is MAX_MATCHING + 1): the total a search or a filtered list shows.
   */
  async countMatching(accountId: string, formId: string, input: Omit<BrowseInput, 'cursor' | 'direction' | 'limit'>): Promise<number> {
    await this.forms.getFormOfAccount(accountId, formId);
    const { from, to } = checkDays(input);
    const words = searchWords(input.q);
    if (words.length > 0) await this.searchIndex.indexPending({ merge: false });
    return countMatching(this.db, this.dialect, filterOf(formId, words, input, from, to), MAX_MATCHING + 1);
  }

  /**
   * The IDs of every submission the list's filter matches, newest first, for a bulk action on
   * "all matching"; more than MAX_MATCHING is validation_failed (narrow the filter first).
   */
  async matchingIds(accountId: string, formId: string, input: Omit<BrowseInput, 'cursor' | 'direction' | 'limit'>): Promise<string[]> {
    await this.forms.getFormOfAccount(accountId, formId);
    const { from, to } = checkDays(input);
    const words = searchWords(input.q);
    if (words.length > 0) await this.searchIndex.indexPending({ merge: false });
    const ids = await listMatchingIds(this.db, this.dialect, filterOf(formId, words, input, from, to), MAX_MATCHING + 1);
    if (ids.length > MAX_MATCHING) {
      throw validationFailed(`More than ${MAX_MATCHING.toLocaleString('en')} submissions match.`, { scope: `Narrow the filter to at most ${MAX_MATCHING.toLocaleString('en')} submissions` });
    }
    return ids;
  }

  /**
   * What the list shows (search, inbox or spam, dates), newest first, page by page through the
   * same search as the page itself: an export of what the owner is looking at.
   */
  private async *filteredPages(accountId: string, formId: string, filter: ExportFilter): AsyncGenerator<ExportedSubmission[]> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.browse(accountId, formId, { ...filter, limit: FILTERED_EXPORT_PAGE, ...(cursor ? { cursor } : {}) });
      if (page.submissions.length > 0) yield page.submissions;
      if (!page.olderCursor) return;
      cursor = page.olderCursor;
      await yieldToWaitingWork();
    }
  }

  /** Counts and last submission per form, for the forms list (counters, never a scan). */
  async summariseForms(accountId: string, formIds: string[]): Promise<Map<string, FormSummary>> {
    const [rows, triaged] = await Promise.all([listFormOverviewRows(this.db, accountId, formIds), this.inbox.countTriaged(formIds)]);
    const triagedByForm = new Map(triaged.map((t) => [t.formId, t]));
    return new Map(
      rows.map((r) => {
        const t = triagedByForm.get(r.formId);
        const unread = Math.max(0, r.inbox - (t?.read ?? 0));
        const open = Math.max(0, r.inbox - (t?.done ?? 0));
        return [r.formId, { inbox: r.inbox, spam: r.spam, unread, open, lastSubmissionAt: r.lastSubmissionAt }];
      }),
    );
  }

  /**
   * Inbox and spam per day of the viewer's zone for the last `days` days (today included), zeros
   * filled in. The UTC hours of the counters are added up into the days they start in; in a zone
   * whose days start inside an hour (India, Nepal...), that hour's part after the day's start is
   * counted from the rows and moved to its day.
   */
  async dailyCounts(accountId: string, formId: string, days: number, timeZone = UTC, now = new Date()): Promise<DailyCount[]> {
    await this.forms.getFormOfAccount(accountId, formId);
    const today = localDay(timeZone, now.getTime());
    const allDays = Array.from({ length: days }, (_, i) => nextCalendarDay(today, i - days + 1));
    const starts = allDays.map((day) => startOfLocalDay(timeZone, day));
    const end = startOfLocalDay(timeZone, nextCalendarDay(today));
    const counts = allDays.map((day) => ({ day, inbox: 0, spam: 0 }));
    // The day an instant falls in: the last start at or before it (-1: before the first day).
    const dayIndex = (ms: number) => {
      let i = starts.length - 1;
      while (i >= 0 && starts[i]! > ms) i--;
      return ms >= end ? -1 : i;
    };
    const add = (i: number, inbox: number, spam: number) => {
      if (i < 0) return;
      counts[i]!.inbox += inbox;
      counts[i]!.spam += spam;
    };
    const firstHour = Math.floor(starts[0]! / HOUR_MS) * HOUR_MS;
    for (const row of await listHourlyCounts(this.db, formId, hourKey(firstHour), hourKey(end + HOUR_MS - 1))) {
      add(dayIndex(hourOfKey(row.hour)), row.inbox, row.spam);
    }
    const splitHours = [...starts, end].filter((start) => start % HOUR_MS !== 0);
    const ranges = splitHours.map((start) => ({ from: iso(start), to: iso(Math.ceil(start / HOUR_MS) * HOUR_MS) }));
    for (const part of await countSubmissionsInRanges(this.db, formId, ranges)) {
      const hour = hourOfKey(part.hour);
      const dayStart = splitHours.find((start) => start > hour && start < hour + HOUR_MS)!;
      add(dayIndex(hour), -part.inbox, -part.spam);
      add(dayIndex(dayStart), part.inbox, part.spam);
    }
    return counts;
  }

  /**
   * Every submission of an owned form, newest first, in pages of `pageSize` for an export. The
   * form is checked once and pages follow each other by position (no cursors to sign).
   */
  async *exportPages(accountId: string, formId: string, pageSize = EXPORT_PAGE_SIZE[this.dialect], filter?: ExportFilter): AsyncGenerator<ExportedSubmission[]> {
    if (filter) {
      yield* this.filteredPages(accountId, formId, filter);
      return;
    }
    await this.forms.getFormOfAccount(accountId, formId);
    const pages = pagesByPosition((after) => listExportRowsOfForm(this.db, formId, { limit: pageSize, ...(after ? { after } : {}) }), pageSize);
    for await (const rows of pages) yield rows.map(exportRowToExportedSubmission);
  }

  /**
   * The field names of an owned form's submissions in order of first appearance, newest
   * submission first: a CSV export's columns. Reads only the payloads, page by page.
   */
  async exportFieldNames(accountId: string, formId: string, pageSize = EXPORT_PAGE_SIZE[this.dialect], filter?: ExportFilter): Promise<string[]> {
    const names = new Set<string>();
    if (filter) {
      for await (const page of this.filteredPages(accountId, formId, filter)) for (const s of page) for (const name of Object.keys(s.payload)) names.add(name);
      return [...names];
    }
    await this.forms.getFormOfAccount(accountId, formId);
    const pages = pagesByPosition((after) => listExportPayloadsOfForm(this.db, formId, { limit: pageSize, ...(after ? { after } : {}) }), pageSize);
    for await (const rows of pages) for (const row of rows) for (const name of Object.keys(parsePayload(row.payload))) names.add(name);
    return [...names];
  }
}

/**
 * Reads a whole form page by page, newest first, by position, and hands it on in slices of at
 * most EXPORT_SLICE_ROWS. The next page is asked for as soon as a page arrives, so on PostgreSQL
 * its query runs while this page is formatted and sent. Between two slices the event loop runs
 * what is waiting, and under load sits out more turns (yieldToWaitingWork): on SQLite each page is
 * read synchronously, and an export of a million rows must not take the loop from the submissions.
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
      for (let start = 0; start < rows.length; start += EXPORT_SLICE_ROWS) {
        yield rows.slice(start, start + EXPORT_SLICE_ROWS);
        if (more || start + EXPORT_SLICE_ROWS < rows.length) await yieldToWaitingWork();
      }
      if (!more) return;
    }
  } finally {
    // A download cut short leaves the read ahead unawaited: its failure is of no interest.
    next.catch(() => {});
  }
}
