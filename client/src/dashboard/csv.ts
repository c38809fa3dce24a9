/** Spreadsheets (Excel above all) read a UTF-8 file as UTF-8 only when it starts with this. */
const CSV_BOM = '\uFEFF';

/**
 * A cell a spreadsheet would read as a formula (=, +, -, @, a leading tab, CR or LF, or their
 * full-width forms) gets a leading single quote, as the server's own CSV export does.
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/.test(value) ? `'${value}` : value;
}

export const valueText = (value: unknown): string =>
  Array.isArray(value) ? value.map(valueText).join('; ') : value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

function cell(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : neutraliseFormula(valueText(value));
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface OpenedRow {
  id: string;
  createdAt: string;
  fields: Record<string, unknown>;
}

/** The server export's column order: the time, every field (first seen first), then the id. */
export function decryptedCsv(rows: readonly OpenedRow[]): string {
  const names: string[] = [];
  for (const row of rows) for (const name of Object.keys(row.fields)) if (names.indexOf(name) < 0) names.push(name);
  const lines = [['createdAt', ...names, 'id'].map(cell).join(',')];
  for (const row of rows) {
    const values = names.map((name) => (Object.prototype.hasOwnProperty.call(row.fields, name) ? row.fields[name] : ''));
    lines.push([row.createdAt, ...values, row.id].map(cell).join(','));
  }
  return `${CSV_BOM}${lines.join('\r\n')}\r\n`;
}
