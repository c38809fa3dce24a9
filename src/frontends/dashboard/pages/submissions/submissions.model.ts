import { valueText } from '../../../../platform/lib/template.js';
import type { MessageLogEntry } from '../../../../features/outbox/outbox.types.js';
import type { Form } from '../../../../features/forms/form.types.js';
import { BROWSE_PAGE_SIZE, type BrowsePage } from '../../../../features/submissions/submission-browse.service.js';
import type { DailyCount } from '../../../../features/submissions/submission.types.js';
import type { SubmissionTriage, TriageFilter } from '../../../../features/inbox/inbox.types.js';
import type { Submission } from '../../../../features/submissions/submission.types.js';

/** The list page's query string, as the browser sends it (everything optional and unchecked). */
export interface SubmissionListQuery {
  spam?: string;
  q?: string;
  from?: string;
  to?: string;
  cursor?: string;
  dir?: string;
  at?: string;
  read?: string;
  state?: string;
  assignee?: string;
  tag?: string;
}

/** What the list page asks the browse service for, read from its query string. */
export interface SubmissionListRequest {
  spam: boolean;
  direction: 'older' | 'newer';
  /** Index of the page's first row in the whole list: only for "Showing 51–100". */
  at: number;
  /** Kept in links as given; the inbox filters hold only known values ('' = any). */
  /** `assignee`: '', 'me', 'none' or a member's user ID (kept only when it is one: withKnownAssignee). */
  filters: { q: string; from: string; to: string; read: '' | 'unread' | 'read'; state: '' | 'open' | 'done'; assignee: string; tag: string };
  cursor?: string;
}

const oneOf = <T extends string>(value: string | undefined, choices: readonly T[]): T | '' => (choices as readonly string[]).includes(value ?? '') ? (value as T) : '';

export function readSubmissionListQuery(query: SubmissionListQuery): SubmissionListRequest {
  return {
    spam: query.spam === '1',
    direction: query.dir === 'newer' ? 'newer' : 'older',
    at: Math.max(0, Math.min(1e9, Number.parseInt(query.at ?? '0', 10) || 0)),
    filters: {
      q: query.q ?? '',
      from: query.from ?? '',
      to: query.to ?? '',
      read: oneOf(query.read, ['unread', 'read'] as const),
      state: oneOf(query.state, ['open', 'done'] as const),
      assignee: /^[A-Za-z0-9_-]{1,64}$/.test(query.assignee ?? '') ? query.assignee! : '',
      tag: (query.tag ?? '').trim().toLowerCase().slice(0, 40),
    },
    ...(query.cursor ? { cursor: query.cursor } : {}),
  };
}

/**
 * The filters with an assignee that is one of `memberIds` (the account's members who may be
 * assigned), 'me' or 'none'; anything else (another account's member, a made-up ID) counts as
 * any assignee, so a filter tells nothing about other accounts.
 */
export function withKnownAssignee<F extends { assignee: string }>(filters: F, memberIds: string[]): F {
  const a = filters.assignee;
  return a === '' || a === 'me' || a === 'none' || memberIds.includes(a) ? filters : { ...filters, assignee: '' };
}

/** The list's inbox filters for the browse service; "me" is the signed-in member. Pass filters through withKnownAssignee first. */
export function triageFilterOf(filters: SubmissionListRequest['filters'], memberId: string): TriageFilter | undefined {
  const assigneeId = filters.assignee === 'me' ? memberId : filters.assignee === 'none' ? null : filters.assignee;
  const filter: TriageFilter = {
    ...(filters.read ? { read: filters.read === 'read' } : {}),
    ...(filters.state ? { state: filters.state } : {}),
    ...(filters.assignee ? { assigneeId } : {}),
    ...(filters.tag ? { tag: filters.tag } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/** Why a submission is spam, in words (the API and exports keep the codes). */
const SPAM_REASON_WORDS: Record<string, string> = {
  honeypot: 'a hidden trap field was filled in',
  bot_check: 'it failed the bot check',
  blocked_term: 'it contains a blocked word',
  blocked_email: 'it names a blocked address',
  too_many_links: 'it has too many links',
  marked: 'marked spam by hand',
  too_fast: 'sent too soon after the page loaded',
  classifier: 'the learning filter is sure it is spam',
};

export function spamReasonWords(reason: string | null, score: number | null = null): string {
  const words = reason ? (SPAM_REASON_WORDS[reason] ?? reason) : 'no reason recorded';
  return score === null ? words : `${words} (score ${(Math.floor(score * 1e4) / 1e4).toFixed(4)})`;
}

export const EMPTY_BROWSE_PAGE: BrowsePage = { submissions: [], olderCursor: null, newerCursor: null, words: [] };

const describeValue = (value: unknown) => valueText(value);

/** The fields of a submission as name and printable value, in the order they were sent. */
export const submissionFields = (submission: Submission) =>
  Object.entries(submission.payload).map(([name, value]) => ({ name, value: describeValue(value) }));

/** Fields that say who sent a submission, in the order they are looked for. */
const NAME_FIELDS = ['name', 'fullname', 'full_name', 'full-name', 'your-name', 'your_name'];
const EMAIL_FIELDS = ['email', 'e-mail', 'mail', 'your-email', 'your_email'];

function fieldNamed(payload: Record<string, unknown>, names: string[]): string | undefined {
  for (const [name, value] of Object.entries(payload)) {
    if (names.includes(name.toLowerCase()) && typeof value === 'string' && value.trim() !== '') return name;
  }
  return undefined;
}

/** Who sent it (a name field, else an email field) and the rest of the fields as one line, as an inbox row shows them. */
export function rowSummary(submission: Submission): { who: string; whoDetail: string; preview: string } {
  const nameField = fieldNamed(submission.payload, NAME_FIELDS);
  const emailField = fieldNamed(submission.payload, EMAIL_FIELDS);
  const text = (field: string | undefined) => (field === undefined ? '' : describeValue(submission.payload[field]).slice(0, 120));
  const shown = new Set([nameField, emailField].filter((f): f is string => f !== undefined));
  const preview = Object.entries(submission.payload)
    .filter(([name]) => !shown.has(name))
    .map(([name, value]) => `${name}: ${describeValue(value)}`)
    .join(' · ')
    .slice(0, 200);
  return { who: text(nameField) || text(emailField), whoDetail: nameField ? text(emailField) : '', preview };
}

/**
 * The list page's model: counts for the tabs and the chart, the "Showing" line, and paging links
 * that keep the search. `url` is the request's own URL, so the bulk form can come back to it.
 */
export function submissionListModel(input: {
  form: Form;
  request: SubmissionListRequest;
  counts: { inbox: number; spam: number; unread: number; open: number };
  /** How many the filter or search matches (MAX_MATCHING + 1: more than that); undefined when unfiltered. */
  matching: number | undefined;
  maxMatching: number;
  days: DailyCount[];
  page: BrowsePage;
  triage: Map<string, SubmissionTriage>;
  tags: string[];
  /** Who the filter and the bulk bar may assign: the account's members who may triage. */
  members: Array<{ id: string; email: string }>;
  viewerId: string;
  fieldErrors: Record<string, string>;
  url: string;
}): Record<string, unknown> {
  const { form, request, counts, days, page } = input;
  const { spam, at, filters } = request;
  const filtered = page.words.length > 0 || Object.entries(filters).some(([k, v]) => k !== 'q' && v !== '');
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
  const total = input.matching ?? (spam ? counts.spam : counts.inbox);
  const totalText = total > input.maxMatching ? `more than ${input.maxMatching.toLocaleString('en')}` : total.toLocaleString('en');
  const matchWord = filtered ? (total === 1 ? ' match' : ' matches') : '';
  const position = shown === 0 ? '' : `Showing ${(at + 1).toLocaleString('en')}–${(at + shown).toLocaleString('en')} of ${totalText}${matchWord}`;
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
    unreadCount: counts.unread,
    openCount: counts.open,
    total,
    totalText,
    allMatchingLabel: filtered ? `All ${totalText} matching` : `All ${totalText} in ${spam ? 'spam' : 'the inbox'}`,
    canSelectAll: total <= input.maxMatching,
    tags: input.tags,
    members: input.members,
    spamCount: counts.spam,
    days,
    daysInbox: days.reduce((n, d) => n + d.inbox, 0),
    daysSpam: days.reduce((n, d) => n + d.spam, 0),
    position,
    back: `/dashboard/forms/${form.id}/submissions${input.url.includes('?') ? input.url.slice(input.url.indexOf('?')) : ''}`,
    olderHref: page.olderCursor ? link(page.olderCursor, 'older', at + shown) : null,
    newerHref: page.newerCursor ? link(page.newerCursor, 'newer', at - BROWSE_PAGE_SIZE) : null,
    submissions: page.submissions.map((s) => {
      const t = input.triage.get(s.id);
      return {
        id: s.id,
        createdAt: s.createdAt,
        country: s.country,
        reason: spamReasonWords(s.spamReason, s.spamScore),
        ...rowSummary(s),
        read: t?.read ?? false,
        done: t?.state === 'done',
        assignee: t?.assignee ?? null,
        assignedToMe: t?.assigneeId != null && t.assigneeId === input.viewerId,
        tags: t?.tags ?? [],
      };
    }),
  };
}

/** "Deleted 3 submissions." and the like, for the flash after a bulk action. */
export const countedNotice = (verb: string, n: number, suffix = '') => `${verb} ${n} submission${n === 1 ? '' : 's'}${suffix}.`;

/** The learning filter's state in words: what it learned, and what it still needs while it files nothing. */
export function spamFilterStatusText(status: { spam: number; ham: number; needed: number; ready: boolean }): string {
  const so = `${status.spam.toLocaleString('en')} spam, ${status.ham.toLocaleString('en')} not spam`;
  return status.ready
    ? `Learning: it files what it is sure is spam. Learned from ${so}.`
    : `Not filing anything yet: it needs ${status.needed} of each: ${so} so far. Mark submissions "Spam" or "Not spam" to teach it.`;

}

/** The submission's outbound messages as the page shows them: state and reason in words. */
export function messageLogModel(messages: MessageLogEntry[]) {
  return messages.map((m) => ({
    ...m,
    stateText: m.state === 'skipped' || m.state === 'failed' || m.state === 'retrying' ? `${m.state}${m.reason ? `: ${m.reason}` : ''}` : m.state,
    answer: m.lastStatus ?? (m.state === 'failed' ? '' : '—'),
  }));
}
