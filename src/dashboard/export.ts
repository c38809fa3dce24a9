import type { Submission } from '../submissions/submission.types.js';

const FIXED_COLUMNS = ['id', 'createdAt', 'isSpam', 'country'] as const;

/**
 * A cell that a spreadsheet would read as a formula (=, +, -, @, or a leading tab/CR) is
 * prefixed with a single quote, the OWASP CSV-injection advice.
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvCell(value: unknown): string {
  const text = neutraliseFormula(
    value === null || value === undefined ? '' : Array.isArray(value) ? value.join('; ') : String(value),
  );
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(fieldNames: string[]): string {
  return `${[...FIXED_COLUMNS, ...fieldNames].map(csvCell).join(',')}\r\n`;
}

/** One CSV row in the column order of csvHeader: fixed columns, then the fields in the given order. */
export function csvRow(submission: Submission, fieldNames: string[]): string {
  const fixed = [submission.id, submission.createdAt, submission.isSpam ? 1 : 0, submission.country];
  const fields = fieldNames.map((name) => (Object.hasOwn(submission.payload, name) ? submission.payload[name] : ''));
  return `${[...fixed, ...fields].map(csvCell).join(',')}\r\n`;
}

export function ndjsonRow(submission: Submission): string {
  return `${JSON.stringify({
    id: submission.id,
    createdAt: submission.createdAt,
    isSpam: submission.isSpam ? 1 : 0,
    country: submission.country,
    payload: submission.payload,
  })}\n`;
}
