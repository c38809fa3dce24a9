import type { ExportedSubmission } from '../submissions/submission.types.js';

const FIXED_COLUMNS = ['id', 'createdAt', 'isSpam', 'spamReason', 'country'] as const;

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

function csvCell(value: unknown): string {
  // A JSON number is data, not a formula: -5 stays -5.
  const text =
    typeof value === 'number'
      ? String(value)
      : neutraliseFormula(value === null || value === undefined ? '' : Array.isArray(value) ? value.join('; ') : String(value));
  // Semicolons too: spreadsheets in semicolon locales split on them.
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(fieldNames: string[]): string {
  return `${[...FIXED_COLUMNS, ...fieldNames].map(csvCell).join(',')}\r\n`;
}

/** One CSV row in the column order of csvHeader: fixed columns, then the fields in the given order. */
export function csvRow(submission: ExportedSubmission, fieldNames: string[]): string {
  const fixed = [submission.id, submission.createdAt, submission.isSpam ? 1 : 0, submission.spamReason ?? '', submission.country];
  const fields = fieldNames.map((name) => (Object.hasOwn(submission.payload, name) ? submission.payload[name] : ''));
  return `${[...fixed, ...fields].map(csvCell).join(',')}\r\n`;
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
