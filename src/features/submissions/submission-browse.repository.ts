import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Dialect, Executor } from '../../platform/db/database.js';
import type { Database, SubmissionRow } from '../../platform/db/schema.js';
import type { TriageFilter } from '../inbox/inbox.types.js';
import { triageConditions } from './triage-filter.repository.js';

type SubmissionsQuery = SelectQueryBuilder<Database, 'submissions', {}>;

/**
 * Where a dashboard page starts or ends. Lists and PostgreSQL searches use (createdAt, id), the
 * API's newest-first order; SQLite searches walk the FTS5 index in rowid order (arrival
 * order), so their position is the rowid.
 */
export type BrowsePosition = { createdAt: string; id: string } | { rowid: number };

interface BrowseFilter {
  formId: string;
  /** Words that must all occur in the field values; empty = every submission. */
  words: string[];
  isSpam?: 0 | 1;
  /** Inclusive lower and exclusive upper bound on created_at (ISO text). */
  from?: string;
  to?: string;
  /** The team inbox's filters (docs/dashboard.md, Team inbox); absent: any. */
  triage?: TriageFilter;
}


interface BrowseQuery extends BrowseFilter, BrowseFilterDays {
  limit: number;
  /** 'older': rows after `position` in newest-first order; 'newer': rows before it. */
  direction: 'older' | 'newer';
  position?: BrowsePosition;
}

export type BrowseRow = SubmissionRow & { search_rowid?: number };

interface BrowseFilterDays {
  /** The UTC days (YYYY-MM-DD, inclusive) the date filter's instants touch: SQLite's search narrows by them first. */
  fromDay?: string;
  toDay?: string;
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The fewest day/month/year words (as indexed by migration 0006) that cover [fromDay, toDay]:
 * whole years, then whole months, then single days. Open ends stop at 2000 and next year, which
 * no submission can lie outside of.
 */
export function dateRangeWords(fromDay: string | undefined, toDay: string | undefined, now = Date.now()): string[] {
  let cur = Date.parse(`${fromDay ?? '2000-01-01'}T00:00:00.000Z`);
  const end = Date.parse(`${toDay ?? `${new Date(now).getUTCFullYear() + 1}-12-31`}T00:00:00.000Z`);
  const words: string[] = [];
  while (cur <= end) {
    const d = new Date(cur);
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth();
    const yearEnd = Date.UTC(y, 11, 31);
    const monthEnd = Date.UTC(y, m + 1, 0);
    if (m === 0 && d.getUTCDate() === 1 && yearEnd <= end) {
      words.push(`y${y}`);
      cur = Date.UTC(y + 1, 0, 1);
    } else if (d.getUTCDate() === 1 && monthEnd <= end) {
      words.push(`m${dayOf(cur).slice(0, 7).replace('-', '')}`);
      cur = Date.UTC(y, m + 1, 1);
    } else {
      words.push(`d${dayOf(cur).replace(/-/g, '')}`);
      cur += DAY_MS;
    }
  }
  return words;
}

/** A phrase per word, quotes doubled: user text never becomes FTS5 query syntax. */
function ftsMatchExpression(query: BrowseFilter & BrowseFilterDays): string {
  const phrase = (text: string) => `"${text.replace(/"/g, '""')}"`;
  const parts = [`form : ${phrase(query.formId.replace(/_/g, ''))}`];
  if (query.isSpam !== undefined) parts.push(`form : ${query.isSpam ? 'spam' : 'inbox'}`);
  if (query.fromDay || query.toDay) {
    const words = dateRangeWords(query.fromDay, query.toDay);
    // An empty range (from after to) matches nothing; "form : ()" is not valid syntax.
    parts.push(words.length > 0 ? `form : (${words.join(' OR ')})` : 'form : "nothing_in_range"');
  }
  // The last word is a prefix ("refu" finds "refund"): people type the start of what they remember.
  const last = query.words.length - 1;
  return [...parts, ...query.words.map((w, i) => `body : ${phrase(w)}${i === last ? ' *' : ''}`)].join(' AND ');
}

/**
 * One page of a form's submissions, optionally matching words, newest first (rows of a 'newer'
 * page come back oldest first; the caller reverses them). Each branch is one index walk that
 * stops after `limit` rows: the form's (created_at, id) index for lists, the FTS5 index in
 * rowid order on SQLite, and on PostgreSQL the planner's choice between the GIN index (rare
 * words) and the form's index filtered by the tsvector (common words).
 */
export async function browseSubmissionRows(db: Executor, dialect: Dialect, query: BrowseQuery): Promise<BrowseRow[]> {
  const older = query.direction === 'older';
  if (query.words.length > 0 && dialect === 'sqlite') {
    const after = query.position && 'rowid' in query.position ? query.position.rowid : undefined;
    const conditions = ftsConditions(query);
    if (after !== undefined) conditions.push(older ? sql`submissions_fts.rowid < ${after}` : sql`submissions_fts.rowid > ${after}`);
    const result = await sql<BrowseRow>`select s.*, submissions_fts.rowid as search_rowid
      from submissions_fts join submissions s on s.rowid = submissions_fts.rowid
      where ${sql.join(conditions, sql` and `)}
      order by submissions_fts.rowid ${older ? sql`desc` : sql`asc`} limit ${query.limit}`.execute(db);
    return result.rows;
  }
  const direction = older ? 'desc' : 'asc';
  const base = (after: BrowsePosition | undefined) => filteredSubmissions(db, query, after, older);
  if (query.words.length === 0) {
    return base(query.position).selectAll().orderBy('created_at', direction).orderBy('id', direction).limit(query.limit).execute();
  }
  return searchPostgres(db, query, base, direction);
}

/**
 * SQLite's search conditions on the FTS index joined to submissions `s`. Unary + keeps SQLite
 * from driving the join from the submissions indexes and probing the FTS index once per row
 * (seconds at 1M rows); the filters are in the MATCH already, these exact checks only confirm
 * the rows found.
 */
function ftsConditions(query: BrowseFilter & BrowseFilterDays): RawBuilder<unknown>[] {
  const conditions: RawBuilder<unknown>[] = [sql`submissions_fts match ${ftsMatchExpression(query)}`, sql`+s.form_id = ${query.formId}`];
  if (query.isSpam !== undefined) conditions.push(sql`+s.is_spam = ${query.isSpam}`);
  if (query.from) conditions.push(sql`+s.created_at >= ${query.from}`);
  if (query.to) conditions.push(sql`+s.created_at < ${query.to}`);
  conditions.push(...triageConditions(query.triage, 's.id'));
  return conditions;
}

/** The form's submissions passing the filter (words aside), after `after` in page order. */
function filteredSubmissions(db: Executor, query: BrowseFilter, after: BrowsePosition | undefined, older = true): SubmissionsQuery {
  let q = db.selectFrom('submissions').where('form_id', '=', query.formId);
  for (const condition of triageConditions(query.triage, 'submissions.id')) q = q.where(condition);
  if (query.isSpam !== undefined) q = q.where('is_spam', '=', query.isSpam);
  if (query.from) q = q.where('created_at', '>=', query.from);
  if (query.to) q = q.where('created_at', '<', query.to);
  if (after && 'createdAt' in after) {
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), older ? '<' : '>', eb.tuple(after.createdAt, after.id)));
  }
  return q;
}

/**
 * The IDs of the first `limit` submissions matching a filter (search words included), newest
 * first: the rows a bulk action on "all matching" applies to, and (their number) a search's
 * total. Bounded by `limit` whatever the form's size.
 */
export async function listMatchingIds(db: Executor, dialect: Dialect, filter: BrowseFilter & BrowseFilterDays, limit: number): Promise<string[]> {
  if (filter.words.length > 0 && dialect === 'sqlite') {
    const result = await sql<{ id: string }>`select s.id from submissions_fts join submissions s on s.rowid = submissions_fts.rowid
      where ${sql.join(ftsConditions(filter), sql` and `)} order by submissions_fts.rowid desc limit ${limit}`.execute(db);
    return result.rows.map((r) => r.id);
  }
  let q = filteredSubmissions(db, filter, undefined);
  if (filter.words.length > 0) {
    for (const condition of prefilter(filter.words)) q = q.where(condition);
    q = q.where(matches(filter.words));
  }
  return (await q.select('id').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map((r) => r.id);
}

/** How many submissions match a filter, counting no further than `limit`. */
export async function countMatching(db: Executor, dialect: Dialect, filter: BrowseFilter & BrowseFilterDays, limit: number): Promise<number> {
  if (filter.words.length > 0 && dialect === 'sqlite') {
    const result = await sql<{ n: number }>`select count(*) as n from (select 1 from submissions_fts join submissions s on s.rowid = submissions_fts.rowid
      where ${sql.join(ftsConditions(filter), sql` and `)} limit ${limit})`.execute(db);
    return Number(result.rows[0]?.n ?? 0);
  }
  let q = filteredSubmissions(db, filter, undefined);
  if (filter.words.length > 0) {
    for (const condition of prefilter(filter.words)) q = q.where(condition);
    q = q.where(matches(filter.words));
  }
  const row = await db
    .selectFrom(q.select(sql<number>`1`.as('one')).limit(limit).as('m'))
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** PostgreSQL's search: how many of the newest rows are read before the GIN index takes over. */
export const RECENT_WINDOW = 2000;

// The same expression as submissions_search_idx (migration 0006), or the index is not used.
// The last word is a prefix (`'refu':*`), quoted so user text never becomes tsquery syntax.
const prefixQuery = (word: string) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}':*`;
const matches = (words: string[]) => {
  const last = sql`to_tsquery('simple'::regconfig, ${prefixQuery(words[words.length - 1] ?? '')})`;
  const query = words.length > 1 ? sql`(plainto_tsquery('simple'::regconfig, ${words.slice(0, -1).join(' ')}) && ${last})` : last;
  return sql<SqlBool>`formgate_search_vector(payload) @@ ${query}`;
};

/**
 * A cheap necessary condition checked before the tsvector (PostgreSQL runs cheaper quals first):
 * a plain ASCII letters-and-digits word is one lexeme, its own lowercase, so the payload text
 * must contain it, case aside. ~1 µs a row instead of ~15 µs for building the tsvector. Other
 * words (punctuation, non-ASCII) may be split or folded by the parser, so they get no prefilter.
 */
const prefilter = (words: string[]) =>
  words.filter((w) => /^[A-Za-z0-9]+$/.test(w)).map((w) => sql<SqlBool>`payload ilike ${`%${w}%`}`);

/**
 * Two bounded steps instead of trusting the planner's guess of a word's frequency (a rare or
 * absent word it thinks common walks the whole form: seconds at 1M rows). First the newest
 * RECENT_WINDOW rows in page order are read by the form's index and filtered: a common word fills
 * the page there. Only if it does not, the rows older than that window come from the GIN index
 * (the ORDER BY on an expression keeps the planner from walking the btree again); a word that
 * missed the page in 2,000 recent rows is in under 2.5% of them, so that step reads few rows.
 */
async function searchPostgres(
  db: Executor,
  query: BrowseQuery,
  base: (after: BrowsePosition | undefined) => SubmissionsQuery,
  direction: 'asc' | 'desc',
): Promise<BrowseRow[]> {
  const recent = base(query.position)
    .selectAll()
    .orderBy('created_at', direction)
    .orderBy('id', direction)
    .limit(RECENT_WINDOW)
    .as('recent');
  let inWindow = db.selectFrom(recent).selectAll();
  for (const condition of prefilter(query.words)) inWindow = inWindow.where(condition);
  const found = await inWindow
    .where(matches(query.words))
    .orderBy('created_at', direction)
    .orderBy('id', direction)
    .limit(query.limit)
    .execute();
  if (found.length >= query.limit) return found;
  const edge = await base(query.position)
    .select(['created_at', 'id'])
    .orderBy('created_at', direction)
    .orderBy('id', direction)
    .offset(RECENT_WINDOW - 1)
    .limit(1)
    .executeTakeFirst();
  if (!edge) return found; // the window held every row
  const rest = await base({ createdAt: edge.created_at, id: edge.id })
    .selectAll()
    .where(matches(query.words))
    .orderBy(sql`created_at || ''`, direction)
    .orderBy('id', direction)
    .limit(query.limit - found.length)
    .execute();
  return [...found, ...rest];
}

interface FormOverviewRow {
  formId: string;
  inbox: number;
  spam: number;
  lastSubmissionAt: string | null;
}

/**
 * Counts and last submission of the account's listed forms in one statement: the counters'
 * few rows per form, and the newest created_at by one index seek per form.
 */
export async function listFormOverviewRows(db: Executor, accountId: string, formIds: string[]): Promise<FormOverviewRow[]> {
  if (formIds.length === 0) return [];
  const rows = await db
    .selectFrom('forms as f')
    .select((eb) => [
      'f.id',
      eb.selectFrom('submissions as s').whereRef('s.form_id', '=', 'f.id').select((e) => e.fn.max('s.created_at').as('m')).as('last_at'),
      eb.selectFrom('form_counts as c').whereRef('c.form_id', '=', 'f.id').select((e) => e.fn.sum<string | number | null>('c.inbox').as('i')).as('inbox'),
      eb.selectFrom('form_counts as c').whereRef('c.form_id', '=', 'f.id').select((e) => e.fn.sum<string | number | null>('c.spam').as('p')).as('spam'),
    ])
    .where('f.account_id', '=', accountId)
    .where('f.id', 'in', formIds)
    .execute();
  return rows.map((r) => ({ formId: r.id, inbox: Number(r.inbox ?? 0), spam: Number(r.spam ?? 0), lastSubmissionAt: r.last_at ?? null }));
}

/** Inbox and spam of a form in one UTC hour (`YYYY-MM-DDTHH`). */
export interface HourlyCount {
  hour: string;
  inbox: number;
  spam: number;
}

/** The form's counters for the UTC hours in [fromHour, toHour): a few hundred small rows for a month. */
export async function listHourlyCounts(db: Executor, formId: string, fromHour: string, toHour: string): Promise<HourlyCount[]> {
  const rows = await db
    .selectFrom('form_hourly_counts')
    .select((eb) => ['hour', eb.fn.sum<string | number>('inbox').as('inbox'), eb.fn.sum<string | number>('spam').as('spam')])
    .where('form_id', '=', formId)
    .where('hour', '>=', fromHour)
    .where('hour', '<', toHour)
    .groupBy('hour')
    .execute();
  return rows.map((r) => ({ hour: r.hour, inbox: Number(r.inbox), spam: Number(r.spam) }));
}

/**
 * Inbox and spam per UTC hour of the form's submissions inside the given ranges ([from, to) ISO
 * texts, each within one hour): the parts of hours a half-hour zone's days split. Each range is
 * an index range on (form_id, created_at).
 */
export async function countSubmissionsInRanges(db: Executor, formId: string, ranges: Array<{ from: string; to: string }>): Promise<HourlyCount[]> {
  if (ranges.length === 0) return [];
  const hour = sql<string>`substr(created_at, 1, 13)`;
  const rows = await db
    .selectFrom('submissions')
    .select([hour.as('hour'), sql<string | number>`sum(1 - is_spam)`.as('inbox'), sql<string | number>`sum(is_spam)`.as('spam')])
    .where((eb) => eb.or(ranges.map((r) => eb.and([eb('form_id', '=', formId), eb('created_at', '>=', r.from), eb('created_at', '<', r.to)]))))
    .groupBy(hour)
    .execute();
  return rows.map((r) => ({ hour: r.hour, inbox: Number(r.inbox), spam: Number(r.spam) }));
}
