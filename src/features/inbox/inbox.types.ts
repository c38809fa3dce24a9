import { validationFailed } from '../../platform/errors.js';

export const TRIAGE_STATES = ['open', 'done'] as const;
export type TriageState = (typeof TRIAGE_STATES)[number];

export const MAX_TAGS_PER_SUBMISSION = 10;
export const MAX_TAG_LENGTH = 40;
export const MAX_NOTES_LENGTH = 10_000;

/** A submission's team-inbox state (docs/dashboard.md, Team inbox). */
export interface SubmissionTriage {
  read: boolean;
  state: TriageState;
  /** The assigned member's user ID, or null. */
  assigneeId: string | null;
  /** The assigned member's email, or null. */
  assignee: string | null;
  /** Lower case, in alphabetical order. */
  tags: string[];
  /** Private notes: the dashboard's only, never in the API, exports or hooks. */
  notes: string;
  /** Who last wrote the notes (their email) and when; null before anyone did. */
  notesBy: string | null;
  notesAt: string | null;
}

/** A submission nobody has opened or triaged yet. */
export const UNTRIAGED: SubmissionTriage = Object.freeze({ read: false, state: 'open', assigneeId: null, assignee: null, tags: [], notes: '', notesBy: null, notesAt: null }) as SubmissionTriage;

/** The list filters of the team inbox; absent: any. */
export interface TriageFilter {
  read?: boolean;
  state?: 'open' | 'done';
  /** A member's ID, or null for nobody. */
  assigneeId?: string | null;
  tag?: string;
}

/** The management API's view of it: the notes stay in the dashboard. */
export interface ApiTriage {
  read: boolean;
  state: TriageState;
  assignee: string | null;
  tags: string[];
}

export const triageToApiTriage = (t: SubmissionTriage): ApiTriage => ({ read: t.read, state: t.state, assignee: t.assignee, tags: [...t.tags] });

export function toTriageState(value: string): TriageState {
  return value === 'done' ? 'done' : 'open';
}

/**
 * A tag as stored: trimmed, inner white space collapsed, lower case (so "Urgent" and "urgent"
 * are one tag), 1 to 40 characters, no control characters and no comma (the dashboard takes
 * several tags separated by commas). Anything else is validation_failed on `field`.
 */
export function normaliseTag(raw: string, field = 'tag'): string {
  const tag = raw.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
  if (tag === '') throw validationFailed('The tag is empty.', { [field]: 'Enter a tag' });
  if ([...tag].length > MAX_TAG_LENGTH) throw validationFailed('The tag is too long.', { [field]: `Use at most ${MAX_TAG_LENGTH} characters` });
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f,]/.test(tag)) throw validationFailed('The tag is not valid.', { [field]: 'Use no commas or control characters' });
  return tag;
}
