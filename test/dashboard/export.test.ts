import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvHeader, csvRow, neutraliseFormula } from '../../src/frontends/dashboard/pages/submissions/export.js';
import { EXPORT_SLICE_ROWS } from '../../src/features/submissions/submission-browse.service.js';
import type { Submission } from '../../src/features/submissions/submission.types.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createOwner, insertSubmissions, setCreatedAt } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';

const submission = (payload: Submission['payload']): Submission => ({
  id: 'sub_1',
  formId: 'frm_1',
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'delivered',
  isSpam: false,
  spamScore: null,
  spamReason: null,
  payload,
  ip: '',
  country: 'XX',
  userAgent: '',
  referer: '',
});

describe('CSV writer', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', '\nx', '＝1+1', '＋1', '－1', '＠SUM(A1)'])('neutralises %j', (value) => {
    expect(neutraliseFormula(value)).toBe(`'${value}`);
  });

  it('leaves ordinary text alone and quotes what CSV needs quoted', () => {
    expect(neutraliseFormula('hello = world')).toBe('hello = world');
    // Time, then the fields, then the metadata.
    expect(csvHeader(['name', 'note'])).toBe('createdAt,name,note,id,isSpam,spamReason,country,state,assignee,tags\r\n');
    expect(csvRow(submission({ name: '=HYPERLINK("http://evil")', note: 'a,b\n"c"', tags: ['x', 'y'] }), ['name', 'note', 'tags', 'missing'])).toBe(
      '2026-01-01T00:00:00.000Z,"\'=HYPERLINK(""http://evil"")","a,b\n""c""","x; y",,sub_1,0,,XX,open,,\r\n',
    );
  });

  it('quotes semicolons, neutralises a leading LF, and writes JSON numbers as numbers', () => {
    const row = csvRow(submission({ a: 'x;=cmd()', b: '\n=1+1', n: -5, m: 3.5, s: '-5', t: true }), ['a', 'b', 'n', 'm', 's', 't']);
    expect(row).toBe('2026-01-01T00:00:00.000Z,"x;=cmd()","\'\n=1+1",-5,3.5,\'-5,true,sub_1,0,,XX,open,,\r\n');
    expect(csvRow({ ...submission({}), isSpam: true, spamReason: 'blocked_term' }, [])).toBe('2026-01-01T00:00:00.000Z,sub_1,1,blocked_term,XX,open,,\r\n');
  });
});

describe('exports', () => {
  let t: AppUnderTest;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t?.close());

  it('streams every submission as CSV (stable columns, formulas neutralised) and as NDJSON', async () => {
    const client = new DashboardClient(t);
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

    // Bytes, not text(): a fetch decoder drops a BOM.
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const bytes = Buffer.from(await (await t.fetch(`/dashboard/forms/${formId}/export.csv`, { headers: { cookie } })).arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const csv = await client.get(`/dashboard/forms/${formId}/export.csv`);
    expect(csv.res.status).toBe(200);
    expect(csv.res.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = csv.html.trimEnd().split('\r\n');
    expect(lines[0]).toBe('createdAt,name,extra,id,isSpam,spamReason,country,state,assignee,tags');
    expect(lines).toHaveLength(231);
    expect(lines.at(-1)).toMatch(/,'=cmd\|calc,'@x,sub_\w+,0,,XX,open,,$/);
    expect(lines[1]).toMatch(/,n229,,sub_\w+,0,,XX,open,,$/);

    const ndjson = await client.get(`/dashboard/forms/${formId}/export.ndjson`);
    const rows = ndjson.html.trimEnd().split('\n').map((l) => JSON.parse(l) as { payload: Record<string, string> });
    expect(rows).toHaveLength(230);
    expect(rows.at(-1)!.payload).toEqual({ name: '=cmd|calc', extra: '@x' });
    expect(rows.at(-1)).toMatchObject({ isSpam: 0, spamReason: null });

    // Another account cannot export it.
    const other = new DashboardClient(t);
    await other.signUp('other-export@example.com');
    expect((await other.get(`/dashboard/forms/${formId}/export.csv`)).res.status).toBe(404);
  });

  it('reads every row once, newest first, across pages read ahead; field names in order of first appearance', async () => {
    const { account, form } = await createOwner(t.services);
    const base = Date.parse('2026-03-01T00:00:00.000Z');
    // 23 rows in pages of 5 (the last page short); some share a millisecond, so the position's id breaks ties.
    const items = Array.from({ length: 23 }, (_, i) => ({
      createdAt: new Date(base + Math.floor(i / 2)).toISOString(),
      payload: i === 3 ? { old: 'x', name: `n${i}` } : i === 20 ? { zeta: 'z', name: `n${i}`, newest: 'y' } : { name: `n${i}` },
    }));
    const ids = await insertSubmissions(t.services, form.id, items);
    const expected = ids.map((id, i) => ({ id, createdAt: items[i]!.createdAt })).sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));

    const pages: string[][] = [];
    for await (const page of t.services.submissionBrowser.exportPages(account.id, form.id, 5)) pages.push(page.map((s) => s.id));
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(pages.flat()).toEqual(expected.map((e) => e.id));

    // Row 20 is among the newest, row 3 among the oldest: name, then row 20's new names in its
    // payload's order (not alphabetical), then old; by pages of 5 and in one page.
    expect(await t.services.submissionBrowser.exportFieldNames(account.id, form.id, 5)).toEqual(['name', 'zeta', 'newest', 'old']);
    expect(await t.services.submissionBrowser.exportFieldNames(account.id, form.id)).toEqual(['name', 'zeta', 'newest', 'old']);

    // A download cut short after one page: the page read ahead is left behind without an unhandled rejection.
    for await (const page of t.services.submissionBrowser.exportPages(account.id, form.id, 5)) {
      expect(page).toHaveLength(5);
      break;
    }
  });

  it('hands pages larger than a slice on in slices, so formatting one never holds the event loop for a whole page', async () => {
    const { account, form } = await createOwner(t.services);
    const base = Date.parse('2026-04-01T00:00:00.000Z');
    const total = 2 * EXPORT_SLICE_ROWS + 100;
    const ids = await insertSubmissions(
      t.services,
      form.id,
      // Newest first: one field first seen in the first page's second slice, one in the last page.
      Array.from({ length: total }, (_, i) => ({
        createdAt: new Date(base + i).toISOString(),
        payload: i === total - 1 - (EXPORT_SLICE_ROWS + 10) ? { name: `n${i}`, late: 'x' } : i === 0 ? { oldest: 'y', name: 'n0' } : { name: `n${i}` },
      })),
    );
    const pageSize = EXPORT_SLICE_ROWS + 150;
    const slices: string[][] = [];
    for await (const slice of t.services.submissionBrowser.exportPages(account.id, form.id, pageSize)) slices.push(slice.map((s) => s.id));
    // The first page in two slices, the last (shorter than a slice) whole.
    expect(slices.map((slice) => slice.length)).toEqual([EXPORT_SLICE_ROWS, 150, total - pageSize]);
    expect(slices.flat()).toEqual([...ids].reverse());
    expect(await t.services.submissionBrowser.exportFieldNames(account.id, form.id, pageSize)).toEqual(['name', 'late', 'oldest']);
  });

  it("exports of another account's form are not_found", async () => {
    const { form } = await createOwner(t.services);
    const { account: other } = await createOwner(t.services);
    await expect(t.services.submissionBrowser.exportFieldNames(other.id, form.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(t.services.submissionBrowser.exportPages(other.id, form.id).next()).rejects.toMatchObject({ code: 'not_found' });
  });
});
