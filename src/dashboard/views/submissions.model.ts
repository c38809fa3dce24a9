import type { MessageLogEntry } from '../../outbox/outbox.log.js';
import type { Form } from '../../forms/form.types.js';
import { BROWSE_PAGE_SIZE, type BrowsePage } from '../../submissions/submission-browse.service.js';
import type { DailyCount } from '../../submissions/submission-browse.repository.js';
import type { Submission } from '../../submissions/submission.types.js';

/** The list page's query string, as the browser sends it (everything optional and unchecked). */
export interface SubmissionListQuery {
  spam?: string;
  q?: string;
  from?: string;
  to?: string;
  cursor?: string;
  dir?: string;
  at?: string;
}

/** What the list page asks the browse service for, read from its query string. */
export interface SubmissionListRequest {
  spam: boolean;
  direction: 'older' | 'newer';
  /** Index of the page's first row in the whole list: only for "Showing 51–100". */
  at: number;
  filters: { q: string; from: string; to: string };
  cursor?: string;
}

export function readSubmissionListQuery(query: SubmissionListQuery): SubmissionListRequest {
  return {
    spam: query.spam === '1',
    direction: query.dir === 'newer' ? 'newer' : 'older',
    at: Math.max(0, Math.min(1e9, Number.parseInt(query.at ?? '0', 10) || 0)),
    filters: { q: query.q ?? '', from: query.from ?? '', to: query.to ?? '' },
    ...(query.cursor ? { cursor: query.cursor } : {}),
  };
}

export const EMPTY_BROWSE_PAGE: BrowsePage = { submissions: [], olderCursor: null, newerCursor: null, words: [] };

const describeValue = (value: unknown) => (Array.isArray(value) ? value.join(', ') : value === null ? '' : String(value));

/** The fields of a submission as name and printable value, in the order they were sent. */
export const submissionFields = (submission: Submission) =>
  Object.entries(submission.payload).map(([name, value]) => ({ name, value: describeValue(value) }));

function preview(submission: Submission): string {
  return Object.entries(submission.payload)
    .map(([name, value]) => `${name}: ${describeValue(value)}`)
    .join(' · ')
    .slice(0, 200);
}

/**
 * The list page's model: counts for the tabs and the chart, the "Showing" line, and paging links
 * that keep the search. `url` is the request's own URL, so the bulk form can come back to it.
 */
export function submissionListModel(input: {
  form: Form;
  request: SubmissionListRequest;
  counts: { inbox: number; spam: number };
  days: DailyCount[];
  page: BrowsePage;
  fieldErrors: Record<string, string>;
  url: string;
}): Record<string, unknown> {
  const { form, request, counts, days, page } = input;
  const { spam, at, filters } = request;
  const filtered = page.words.length > 0 || filters.from !== '' || filters.to !== '';
  const filterParams = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) filterParams.set(k, v);
  const keep = new URLSearchParams();
  if (spam) keep.set('spam', '1');
  for (const [k, v] of filterParams) keep.set(k, v);
  const link = (cursor: string, dir: 'older' | 'newer', position: number) => {
    const params = new URLSearchParams(keep);
    params.set('cursor', cursor);
    if (dir === 'newer') params.set('dir', 'newer');
    params.set('at', String(Math.max(0, position)));
    return `?${params.toString()}`;
  };
  const shown = page.submissions.length;
  const total = spam ? counts.spam : counts.inbox;
  const position = shown === 0 ? '' : `Showing ${(at + 1).toLocaleString('en')}–${(at + shown).toLocaleString('en')}${filtered ? ' of the matches' : ` of ${total.toLocaleString('en')}`}`;
  return {
    form,
    spam,
    ...filters,
    filtered,
    fieldErrors: input.fieldErrors,
    tabQuery: filterParams.toString(),
    // The Export buttons export what is shown, and say so.
    exportQuery: new URLSearchParams([['spam', spam ? '1' : '0'], ...filterParams]).toString(),
    exportLabel: `${spam ? 'spam' : 'inbox'}${page.words.length > 0 ? ', this search' : ''}${filters.from || filters.to ? ', these dates' : ''}`,
    inboxCount: counts.inbox,
    spamCount: counts.spam,
    days,
    daysInbox: days.reduce((n, d) => n + d.inbox, 0),
    daysSpam: days.reduce((n, d) => n + d.spam, 0),
    position,
    back: `/dashboard/forms/${form.id}/submissions${input.url.includes('?') ? input.url.slice(input.url.indexOf('?')) : ''}`,
    olderHref: page.olderCursor ? link(page.olderCursor, 'older', at + shown) : null,
    newerHref: page.newerCursor ? link(page.newerCursor, 'newer', at - BROWSE_PAGE_SIZE) : null,
    submissions: page.submissions.map((s) => ({ id: s.id, createdAt: s.createdAt, country: s.country, spamReason: s.spamReason, spamScore: s.spamScore, preview: preview(s) })),
  };
}

/** The confirmation page before deleting selected submissions (one or many). */
export function confirmDeleteModel(form: Form, ids: string[], back: string): Record<string, unknown> {
  const n = ids.length;
  return {
    form,
    ids,
    back,
    action: 'delete',
    heading: n === 1 ? 'Delete this submission?' : `Delete ${n} submissions?`,
    question: `${n === 1 ? 'The submission' : `The ${n} selected submissions`} of ${form.name} will be deleted for good, with ${n === 1 ? 'its' : 'their'} pending hook deliveries. This cannot be undone.`,
    confirmLabel: n === 1 ? 'Delete submission' : `Delete ${n} submissions`,
  };
}

/** "Deleted 3 submissions." and the like, for the flash after a bulk action. */
export const countedNotice = (verb: string, n: number, suffix = '') => `${verb} ${n} submission${n === 1 ? '' : 's'}${suffix}.`;

/** The submission's outbound messages as the page shows them: state and reason in words. */
export function messageLogModel(messages: MessageLogEntry[]) {
  return messages.map((m) => ({
    ...m,
    stateText: m.state === 'skipped' || m.state === 'failed' ? `${m.state}${m.reason ? `: ${m.reason}` : ''}` : m.state,
    answer: m.lastStatus ?? (m.state === 'failed' ? '' : '—'),
  }));
}
