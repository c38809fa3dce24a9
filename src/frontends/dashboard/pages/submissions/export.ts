import type { ExportedSubmission } from '../../../../features/submissions/submission.types.js';
import type { SubmissionTriage } from '../../../../features/inbox/inbox.types.js';
import { describeFileValue, isFileValue } from '../../../../platform/lib/file-links.js';

/** Time first, then the fields, then the metadata and the team inbox's state: the order a person reads a submission in. */
const METADATA_COLUMNS = ['id', 'isSpam', 'spamReason', 'country'] as const;
const TRIAGE_COLUMNS = ['state', 'assignee', 'tags'] as const;

/** Spreadsheets (Excel above all) read a UTF-8 file as UTF-8 only when it starts with this. */
export const CSV_BOM = '\uFEFF';

/**
 * A text cell that a spreadsheet would read as a formula (=, +, -, @, a leading tab, CR or LF,
 * or the full-width ＝ ＋ － ＠ some spreadsheets fold to them) is prefixed with a single quote,
 * the OWASP CSV-injection advice.
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/.test(value) ? `'${value}` : value;
}

/** A field item as a person reads it: a stored file by its name and size, never `[object Object]`. */
const itemText = (item: unknown): string => (isFileValue(item) ? describeFileValue(item) : item === null || item === undefined ? '' : String(item));

function csvCell(value: unknown): string {
  // A JSON number is data, not a formula: -5 stays -5.
  const text = typeof value === 'number' ? String(value) : neutraliseFormula(Array.isArray(value) ? value.map(itemText).join('; ') : itemText(value));
  // Semicolons too: spreadsheets in semicolon locales split on them.
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(fieldNames: string[]): string {
  return `${['createdAt', ...fieldNames, ...METADATA_COLUMNS, ...TRIAGE_COLUMNS].map(csvCell).join(',')}\r\n`;
}

/**
 * One CSV row in the column order of csvHeader: the time, the fields in the given order, the
 * metadata, then state (open or done), the assignee's email and the tags (`; ` between them).
 * Tags and emails are the team's words, neutralised like every cell. Without triage: untouched.
 */
export function csvRow(submission: ExportedSubmission, fieldNames: string[], triage?: Pick<SubmissionTriage, 'state' | 'assignee' | 'tags'>): string {
  const metadata = [submission.id, submission.isSpam ? 1 : 0, submission.spamReason ?? '', submission.country];
  const fields = fieldNames.map((name) => (Object.hasOwn(submission.payload, name) ? submission.payload[name] : ''));
  const inbox = [triage?.state ?? 'open', triage?.assignee ?? '', triage?.tags ?? []];
  return `${[submission.createdAt, ...fields, ...metadata, ...inbox].map(csvCell).join(',')}\r\n`;
}

export function ndjsonRow(submission: ExportedSubmission): string {
  return `${JSON.stringify({
    id: submission.id,
    createdAt: submission.createdAt,
    isSpam: submission.isSpam ? 1 : 0,
    spamReason: submission.spamReason,
    country: submission.country,
    payload: submission.payload,
  })}\n`;
}
