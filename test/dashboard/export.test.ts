import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvHeader, csvRow, neutraliseFormula } from '../../src/dashboard/export.js';
import type { Submission } from '../../src/submissions/submission.types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { setCreatedAt } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';

const submission = (payload: Submission['payload']): Submission => ({
  id: 'sub_1',
  formId: 'frm_1',
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'delivered',
  isSpam: false,
  payload,
  ip: '',
  country: 'XX',
  userAgent: '',
  referer: '',
});

describe('CSV writer', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('neutralises %j', (value) => {
    expect(neutraliseFormula(value)).toBe(`'${value}`);
  });

  it('leaves ordinary text alone and quotes what CSV needs quoted', () => {
    expect(neutraliseFormula('hello = world')).toBe('hello = world');
    expect(csvHeader(['name', 'note'])).toBe('id,createdAt,isSpam,country,name,note\r\n');
    expect(csvRow(submission({ name: '=HYPERLINK("http://evil")', note: 'a,b\n"c"', tags: ['x', 'y'] }), ['name', 'note', 'tags', 'missing'])).toBe(
      'sub_1,2026-01-01T00:00:00.000Z,0,XX,"\'=HYPERLINK(""http://evil"")","a,b\n""c""",x; y,\r\n',
    );
  });
});

describe('exports over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('streams every submission as CSV (stable columns, formulas neutralised) and as NDJSON', async () => {
    const client = new DashboardClient(t.url);
    await client.signUp('export@example.com');
    await client.get('/dashboard/forms');
    const created = await client.post('/dashboard/forms', { name: 'Exported' });
    const formId = created.res.headers.get('location')!.split('/')[3]!;
    for (let i = 0; i < 230; i++) {
      const res = await submit(t, formId, { json: i === 0 ? { name: '=cmd|calc', extra: '@x' } : { name: `n${i}` } });
      // One millisecond apart, in the order sent: two submits in one millisecond would otherwise
      // be ordered by the random part of their IDs.
      const { submissionId } = (await res.json()) as { submissionId: string };
      await setCreatedAt(t.services, 'submissions', submissionId, new Date(Date.parse('2026-06-01T00:00:00.000Z') + i).toISOString());
    }

    const csv = await client.get(`/dashboard/forms/${formId}/export.csv`);
    expect(csv.res.status).toBe(200);
    expect(csv.res.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = csv.html.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,createdAt,isSpam,country,name,extra');
    expect(lines).toHaveLength(231);
    expect(lines.at(-1)).toMatch(/,'=cmd\|calc,'@x$/);
    expect(lines[1]).toMatch(/,n229,$/);

    const ndjson = await client.get(`/dashboard/forms/${formId}/export.ndjson`);
    const rows = ndjson.html.trimEnd().split('\n').map((l) => JSON.parse(l) as { payload: Record<string, string> });
    expect(rows).toHaveLength(230);
    expect(rows.at(-1)!.payload).toEqual({ name: '=cmd|calc', extra: '@x' });

    // Another account cannot export it.
    const other = new DashboardClient(t.url);
    await other.signUp('other-export@example.com');
    expect((await other.get(`/dashboard/forms/${formId}/export.csv`)).res.status).toBe(404);
  });
});
