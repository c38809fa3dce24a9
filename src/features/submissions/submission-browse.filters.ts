/** The browse service's input checks, and the dashboard's page cursors. */
import { validationFailed } from '../../platform/errors.js';
import { nextCalendarDay, startOfLocalDay, UTC } from '../../platform/lib/time-zone.js';
import type { BrowsePosition } from './submission-browse.repository.js';
import type { TriageFilter } from '../inbox/inbox.types.js';

const MAX_WORDS = 8;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What a browse filters on (the browse service's input, less its paging). */
export interface BrowseFilterInput {
  q?: string;
  spam?: boolean;
  from?: string;
  to?: string;
  /** Instants (ISO 8601, already checked) narrowing the days further: since inclusive, until exclusive. */
  since?: string;
  until?: string;
  timeZone?: string;
  triage?: TriageFilter;
}

/** Dashboard cursors: opaque to the browser, checked on the way back. */
export function encodePosition(position: BrowsePosition): string {
  const value = 'rowid' in position ? ['r', position.rowid] : ['c', position.createdAt, position.id];
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodePosition(cursor: string): BrowsePosition | undefined {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v[0] === 'r' && Number.isSafeInteger(v[1]) && v.length === 2) return { rowid: v[1] as number };
    if (Array.isArray(v) && v[0] === 'c' && v.length === 3 && typeof v[1] === 'string' && ISO_MS.test(v[1]) && typeof v[2] === 'string' && /^sub_[0-9A-Za-z]{1,64}$/.test(v[2])) {
      return { createdAt: v[1], id: v[2] };
    }
  } catch {
    // not JSON: refused below
  }
  return undefined;
}

/** Words a search must find: letters or digits in each, at most MAX_WORDS. */
export function searchWords(q: string | undefined): string[] {
  return (q ?? '')
    .split(/\s+/)
    .filter((w) => /[\p{L}\p{N}]/u.test(w))
    .slice(0, MAX_WORDS)
    .map((w) => w.slice(0, 100));
}

function checkDay(value: string | undefined, field: 'from' | 'to'): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00.000Z`)) || new Date(`${value}T00:00:00.000Z`).toISOString().slice(0, 10) !== value) {
    throw validationFailed('The date range is not valid.', { [field]: 'Enter a date like 2026-01-31' });
  }
  return value;
}

/** Both days checked, and From not after To (which would match nothing, and say nothing of why). */
export function checkDays(input: Pick<BrowseFilterInput, 'from' | 'to'>): { from: string | undefined; to: string | undefined } {
  const from = checkDay(input.from, 'from');
  const to = checkDay(input.to, 'to');
  if (from !== undefined && to !== undefined && from > to) {
    throw validationFailed('The From date is after the To date.', { to: 'Choose a To date on or after the From date' });
  }
  return { from, to };
}

/** The repository's filter of a browse input. */
export function filterOf(
  formId: string,
  words: string[],
  input: Pick<BrowseFilterInput, 'spam' | 'timeZone' | 'triage' | 'since' | 'until'>,
  from: string | undefined,
  to: string | undefined,
) {
  return {
    formId,
    words,
    ...(input.spam === undefined ? {} : { isSpam: input.spam ? (1 as const) : (0 as const) }),
    ...(input.triage ? { triage: input.triage } : {}),
    ...dateRange(input.timeZone ?? UTC, from, to, input.since, input.until),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The date filter as instants: from the start of `from` to the start of the day after `to`, both
 * days in the viewer's zone, and the UTC days those instants touch (for SQLite's search index).
 */
function dateRange(zone: string, from: string | undefined, to: string | undefined, since?: string, until?: string) {
  const starts = [from ? startOfLocalDay(zone, from) : undefined, since ? Date.parse(since) : undefined].filter((v) => v !== undefined);
  const ends = [to ? startOfLocalDay(zone, nextCalendarDay(to)) : undefined, until ? Date.parse(until) : undefined].filter((v) => v !== undefined);
  const start = starts.length > 0 ? Math.max(...starts) : undefined;
  const end = ends.length > 0 ? Math.min(...ends) : undefined;
  return {
    ...(start !== undefined ? { from: iso(start), fromDay: iso(start).slice(0, 10) } : {}),
    ...(end !== undefined ? { to: iso(end), toDay: iso(end - 1).slice(0, 10) } : {}),
  };
}

