import { describe, expect, it } from 'vitest';
import type { ExportedSubmission } from '../../src/features/submissions/submission.types.js';
import { CSV_BOM, csvHeader, csvRow, ndjsonRow, neutraliseFormula } from '../../src/frontends/dashboard/pages/submissions/export.js';

const submission = (payload: ExportedSubmission['payload'], overrides: Partial<ExportedSubmission> = {}): ExportedSubmission => ({
  id: 'sub_1',
  createdAt: '2026-01-02T03:04:05.006Z',
  isSpam: false,
  spamReason: null,
  country: 'DE',
  payload,
  ...overrides,
});

/** The cells of one CSV line as written (no quoting involved in the values used). */
const cells = (line: string) => line.replace(/\r\n$/, '').split(',');

describe('neutraliseFormula', () => {
  it('prefixes a quote to every text a spreadsheet would start a formula with', () => {
    for (const value of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', '\nx', '\uFF1D1', '\uFF0B1', '\uFF0D1', '\uFF201']) {
      expect(neutraliseFormula(value), JSON.stringify(value)).toBe(`'${value}`);
    }
  });

  it('leaves other text alone, a formula character inside or a quote first included', () => {
    for (const value of ['', 'a=b', ' =1', "'=1", 'x-1', '1-1', 'Ada']) expect(neutraliseFormula(value), JSON.stringify(value)).toBe(value);
  });
});

describe('csvHeader and csvRow', () => {
  it('writes the time, the fields in the order given, then the metadata, each line ending CRLF', () => {
    expect(csvHeader(['name', 'email'])).toBe('createdAt,name,email,id,isSpam,spamReason,country,state,assignee,tags\r\n');
    const row = csvRow(submission({ email: 'ada@example.com', name: 'Ada' }), ['name', 'email']);
    expect(row).toBe('2026-01-02T03:04:05.006Z,Ada,ada@example.com,sub_1,0,,DE,open,,\r\n');
    expect(cells(csvRow(submission({}, { isSpam: true, spamReason: 'honeypot' }), []))).toEqual(['2026-01-02T03:04:05.006Z', 'sub_1', '1', 'honeypot', 'DE', 'open', '', '']);
  });

  it('quotes a cell holding a comma, semicolon, quote or line break, doubling its quotes', () => {
    const row = csvRow(submission({ a: 'x,y', b: 'x;y', c: 'say "hi"', d: 'two\r\nlines', e: 'cr\ronly' }), ['a', 'b', 'c', 'd', 'e']);
    expect(row).toBe('2026-01-02T03:04:05.006Z,"x,y","x;y","say ""hi""","two\r\nlines","cr\ronly",sub_1,0,,DE,open,,\r\n');
  });

  it('neutralises formulas in values and field names, but a JSON number stays a number', () => {
    const row = csvRow(submission({ total: -5, text: '-5', f: '=HYPERLINK("http://evil.example")', at: '@me' }), ['total', 'text', 'f', 'at']);
    expect(row).toBe(`2026-01-02T03:04:05.006Z,-5,'-5,"'=HYPERLINK(""http://evil.example"")",'@me,sub_1,0,,DE,open,,\r\n`);
    expect(csvHeader(['=cmd|calc'])).toBe("createdAt,'=cmd|calc,id,isSpam,spamReason,country,state,assignee,tags\r\n");
  });

  it('writes a missing field, null and an inherited name as empty, booleans and lists as text', () => {
    const row = csvRow(submission({ yes: true, no: false, none: null, list: ['a', 'b'] }), ['yes', 'no', 'none', 'list', 'absent', 'constructor', '__proto__']);
    expect(cells(row)).toEqual(['2026-01-02T03:04:05.006Z', 'true', 'false', '', '"a; b"', '', '', '', 'sub_1', '0', '', 'DE', 'open', '', '']);
  });

  it('the byte-order mark that makes spreadsheets read UTF-8', () => {
    expect(CSV_BOM).toBe('\uFEFF');
    expect(Buffer.from(CSV_BOM, 'utf8')).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });
});

describe('ndjsonRow', () => {
  it('writes one JSON object per line, the payload as stored and no formula escaping', () => {
    const line = ndjsonRow(submission({ f: '=1+1', n: -5, line: 'a\nb' }, { isSpam: true, spamReason: 'marked' }));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      id: 'sub_1',
      createdAt: '2026-01-02T03:04:05.006Z',
      isSpam: 1,
      spamReason: 'marked',
      country: 'DE',
      payload: { f: '=1+1', n: -5, line: 'a\nb' },
    });
  });
});
