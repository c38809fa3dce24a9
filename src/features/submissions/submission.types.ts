import type { SubmissionRow } from '../../platform/db/schema.js';
import type { FileValue } from '../../platform/lib/file-links.js';
import { triageToApiTriage, UNTRIAGED, type ApiTriage, type SubmissionTriage } from '../inbox/inbox.types.js';

/** A stored field value: JSON bodies keep their types; urlencoded and multipart give strings. */
export type FieldScalar = string | number | boolean | null;
/** A field item: a scalar, or a stored file on a form that keeps files (docs/files.md). */
export type FieldItem = FieldScalar | FileValue;
export type FieldValue = FieldItem | FieldItem[];
/**
 * Field name → value. Built with Object.create(null) / defineProperty so names such as
 * `__proto__` are plain data and never touch a prototype.
 */
export type SubmissionPayload = Record<string, FieldValue>;

type SubmissionStatus = 'delivered';

/**
 * Why a submission is spam (docs/api.md, `spamReason`); `marked` is the owner's decision,
 * `too_fast` an ALTCHA solution sent sooner than the form's minimum fill time, `classifier` the
 * learning filter's, `malware` a file clamd found malware in.
 */
export const SPAM_REASONS = ['honeypot', 'bot_check', 'blocked_term', 'blocked_email', 'too_many_links', 'marked', 'too_fast', 'classifier', 'malware'] as const;
export type SpamReason = (typeof SPAM_REASONS)[number];

export function toSpamReason(value: string | null): SpamReason | null {
  return value !== null && (SPAM_REASONS as readonly string[]).includes(value) ? (value as SpamReason) : null;
}

export interface Submission {
  id: string;
  formId: string;
  createdAt: string;
  status: SubmissionStatus;
  isSpam: boolean;
  spamReason: SpamReason | null;
  /** The learning filter's spam probability when it filed the submission (`classifier`); null otherwise. */
  spamScore: number | null;
  payload: SubmissionPayload;
  ip: string;
  country: string;
  userAgent: string;
  referer: string;
}

/** What an export writes of a submission. */
/** Inbox and spam of a form on one day (the chart and the daily counts). */
export interface DailyCount {
  day: string;
  inbox: number;
  spam: number;
}

export type ExportedSubmission = Pick<Submission, 'id' | 'createdAt' | 'isSpam' | 'spamReason' | 'country' | 'payload'>;

/** The API's Submission resource (management view, docs/api.md). */
interface ApiSubmission {
  id: string;
  createdAt: string;
  status: SubmissionStatus;
  isSpam: 0 | 1;
  spamReason: SpamReason | null;
  country: string;
  payload: SubmissionPayload;
  /** The team inbox's state (docs/api.md, `triage`); private notes are not in it. */
  triage: ApiTriage;
}

export function submissionToApiSubmission(s: Submission & { triage?: SubmissionTriage }): ApiSubmission {
  return {
    id: s.id,
    createdAt: s.createdAt,
    status: s.status,
    isSpam: s.isSpam ? 1 : 0,
    spamReason: s.spamReason,
    country: s.country,
    payload: s.payload,
    triage: triageToApiTriage(s.triage ?? UNTRIAGED),
  };
}

/** JSON.parse defines `__proto__` as an own data property, so stored payloads round-trip safely. */
export function parsePayload(json: string): SubmissionPayload {
  return JSON.parse(json) as SubmissionPayload;
}

export function submissionRowToSubmission(row: SubmissionRow): Submission {
  return {
    id: row.id,
    formId: row.form_id,
    createdAt: row.created_at,
    status: row.status as SubmissionStatus,
    isSpam: row.is_spam === 1,
    spamReason: row.is_spam === 1 ? toSpamReason(row.spam_reason) : null,
    spamScore: row.is_spam === 1 && row.spam_reason === 'classifier' && row.spam_score != null ? Number(row.spam_score) : null,
    payload: parsePayload(row.payload),
    ip: row.ip,
    country: row.country,
    userAgent: row.user_agent,
    referer: row.referer,
  };
}

/** Position in "newest first" order: the (createdAt, id) of the last row of the previous page. */
export interface SubmissionPosition {
  createdAt: string;
  id: string;
}
