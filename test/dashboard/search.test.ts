import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../helpers/database.js';
import { createForm, createOwner, insertSubmissions, useMigratedDatabase } from '../helpers/factories.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let services: Services;
useMigratedDatabase((opened) => ({ database, handle, services } = opened));

const at = (day: number, ms = 0) => new Date(Date.UTC(2026, 0, day, 12, 0, 0, ms)).toISOString();

describe('searching a form', () => {
  it('finds submissions by words in their field values, only in that form, newest first', async () => {
    const { account, form } = await createOwner(services);
    const other = await createForm(services, account.id, { name: 'Other' });
    const ids = await insertSubmissions(services, form.id, [
      { createdAt: at(1), payload: { email: 'ada@example.com', message: 'Refund please' } },
      { createdAt: at(2), payload: { email: 'bob@example.com', message: 'Question about pricing' } },
      { createdAt: at(3), payload: { email: 'ada@example.com', message: 'Second refund request', tags: ['urgent', 'billing'] } },
      { createdAt: at(4), payload: { name: 'Zoë', count: 42 } },
    ]);
    await insertSubmissions(services, other.id, [{ createdAt: at(5), payload: { message: 'refund elsewhere' } }]);
    const browse = (q: string) => services.submissionBrowser.browse(account.id, form.id, { q }).then((p) => p.submissions.map((s) => s.id));
    expect(await browse('refund')).toEqual([ids[2], ids[0]]);
    expect(await browse('REFUND second')).toEqual([ids[2]]);
    expect(await browse('ada@example.com')).toEqual([ids[2], ids[0]]);
    expect(await browse('billing')).toEqual([ids[2]]); // array values are searched too
    expect(await browse('42')).toEqual([ids[3]]); // numbers too
    expect(await browse('nothing-like-this')).toEqual([]);
    // The last word is a prefix; earlier words stay whole.
    expect(await browse('refu')).toEqual([ids[2], ids[0]]);
    expect(await browse('second REFU')).toEqual([ids[2]]);
    expect(await browse('refu second')).toEqual([]);
    expect(await browse("second \\ :* & refu'")).toEqual([ids[2]]); // quoting: no query syntax reaches the engine
    expect(await browse("ref'")).toEqual([ids[2], ids[0]]);
    // Query syntax is never interpreted: quotes, operators and column filters are plain words.
    expect(await browse('"refund" OR body:pricing NEAR(')).toEqual([]);
    expect(await browse('*')).toHaveLength(4); // no word at all: the plain list
  });

  it('filters by UTC date range and by inbox or spam, and refuses a bad date with a field error', async () => {
    const { account, form } = await createOwner(services);
    const ids = await insertSubmissions(services, form.id, [
      { createdAt: at(10), payload: { m: 'hello one' } },
      { createdAt: at(11), payload: { m: 'hello two' }, isSpam: true },
      { createdAt: at(12), payload: { m: 'hello three' } },
    ]);
    const browse = (input: Parameters<Services['submissionBrowser']['browse']>[2]) =>
      services.submissionBrowser.browse(account.id, form.id, input).then((p) => p.submissions.map((s) => s.id));
    expect(await browse({ q: 'hello', from: '2026-01-11', to: '2026-01-12' })).toEqual([ids[2], ids[1]]);
    expect(await browse({ q: 'hello', spam: true })).toEqual([ids[1]]);
    expect(await browse({ q: 'hello', spam: false, to: '2026-01-10' })).toEqual([ids[0]]);
    expect(await browse({ from: '2026-01-12' })).toEqual([ids[2]]);
    await expect(browse({ from: '2026-02-30' })).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { from: 'Enter a date like 2026-01-31' } });
    await expect(browse({ cursor: 'forged' })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('pages both ways through search results and plain lists', async () => {
    const { account, form } = await createOwner(services);
    const ids = await insertSubmissions(
      services,
      form.id,
      Array.from({ length: 7 }, (_, i) => ({ createdAt: at(20, i), payload: { m: i % 2 === 0 ? 'even word' : 'odd word' } })),
    );
    for (const q of ['', 'word']) {
      const p1 = await services.submissionBrowser.browse(account.id, form.id, { q, limit: 3 });
      expect(p1.submissions.map((s) => s.id)).toEqual([ids[6], ids[5], ids[4]]);
      expect(p1.newerCursor).toBeNull();
      const p2 = await services.submissionBrowser.browse(account.id, form.id, { q, limit: 3, cursor: p1.olderCursor! });
      expect(p2.submissions.map((s) => s.id)).toEqual([ids[3], ids[2], ids[1]]);
      const p3 = await services.submissionBrowser.browse(account.id, form.id, { q, limit: 3, cursor: p2.olderCursor! });
      expect(p3.submissions.map((s) => s.id)).toEqual([ids[0]]);
      expect(p3.olderCursor).toBeNull();
      const back = await services.submissionBrowser.browse(account.id, form.id, { q, limit: 3, cursor: p3.newerCursor!, direction: 'newer' });
      expect(back.submissions.map((s) => s.id)).toEqual([ids[3], ids[2], ids[1]]);
      const top = await services.submissionBrowser.browse(account.id, form.id, { q, limit: 3, cursor: back.newerCursor!, direction: 'newer' });
      expect(top.submissions.map((s) => s.id)).toEqual([ids[6], ids[5], ids[4]]);
      expect(top.newerCursor).toBeNull();
    }
    const evens = await services.submissionBrowser.browse(account.id, form.id, { q: 'even', limit: 3 });
    expect(evens.submissions.map((s) => s.id)).toEqual([ids[6], ids[4], ids[2]]);
  });

  it("never shows another account's form", async () => {
    const a = await createOwner(services);
    const b = await createOwner(services);
    await expect(services.submissionBrowser.browse(b.account.id, a.form.id, { q: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    const summaries = await services.submissionBrowser.summariseForms(b.account.id, [a.form.id, b.form.id]);
    expect([...summaries.keys()]).toEqual([b.form.id]);
  });
});

describe('counters kept on every write (SQLite: by the insert, PostgreSQL: by a statement trigger; deletes and spam changes: triggers)', () => {
  it('count inbox and spam per form and hour through inserts, spam changes, deletes and form deletion', async () => {
    const { account, form } = await createOwner(services);
    const today = new Date();
    const iso = (daysAgo: number) => new Date(today.getTime() - daysAgo * 86_400_000).toISOString();
    const ids = await insertSubmissions(services, form.id, [
      { createdAt: iso(0), payload: { m: 'a' } },
      { createdAt: iso(0), payload: { m: 'b' }, isSpam: true },
      { createdAt: iso(3), payload: { m: 'c' } },
      { createdAt: iso(3), payload: { m: 'd' } },
      { createdAt: iso(40), payload: { m: 'old' } },
    ]);
    const summary = async () => (await services.submissionBrowser.summariseForms(account.id, [form.id])).get(form.id)!;
    expect(await summary()).toMatchObject({ inbox: 4, spam: 1, lastSubmissionAt: iso(0) });
    const days = await services.submissionBrowser.dailyCounts(account.id, form.id, 30, 'UTC', today);
    expect(days).toHaveLength(30);
    expect(days[29]).toEqual({ day: iso(0).slice(0, 10), inbox: 1, spam: 1 });
    expect(days[26]).toEqual({ day: iso(3).slice(0, 10), inbox: 2, spam: 0 });
    expect(days.reduce((n, d) => n + d.inbox + d.spam, 0)).toBe(4); // the 40-day-old one is outside

    // Marking spam (a plain UPDATE, as the triage code does) moves the count.
    await handle.db.updateTable('submissions').set({ is_spam: 1 }).where('id', '=', ids[2]!).execute();
    expect(await summary()).toMatchObject({ inbox: 3, spam: 2 });
    expect(await services.lifecycle.deleteSubmissions(account.id, form.id, [ids[0]!, ids[1]!, 'sub_unknown'])).toBe(2);
    expect(await summary()).toMatchObject({ inbox: 2, spam: 1 });
    // Deleted rows are gone from the search index too.
    expect((await services.submissionBrowser.browse(account.id, form.id, { q: 'a' })).submissions).toEqual([]);
    expect((await services.submissionBrowser.browse(account.id, form.id, { q: 'd' })).submissions).toHaveLength(1);

    const other = await createForm(services, account.id, { name: 'Doomed' });
    await insertSubmissions(services, other.id, [{ createdAt: iso(0), payload: { m: 'gone' } }]);
    await handle.db.deleteFrom('forms').where('id', '=', other.id).execute();
    expect(await handle.db.selectFrom('form_hourly_counts').selectAll().where('form_id', '=', other.id).execute()).toEqual([]);
    expect(await summary()).toMatchObject({ inbox: 2, spam: 1 });
  });

  it('bulk delete refuses an empty or oversized selection and leaves other forms alone', async () => {
    const { account, form } = await createOwner(services);
    const other = await createForm(services, account.id, { name: 'Other' });
    const [theirs] = await insertSubmissions(services, other.id, [{ createdAt: at(1) }]);
    await expect(services.lifecycle.deleteSubmissions(account.id, form.id, [])).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(services.lifecycle.deleteSubmissions(account.id, form.id, Array.from({ length: 101 }, (_, i) => `sub_${i}`))).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await services.lifecycle.deleteSubmissions(account.id, form.id, [theirs!])).toBe(0);
    expect(await services.submissionQueries.getSubmission(account.id, theirs!)).toMatchObject({ id: theirs });
  });
});

describe('date ranges as index words (SQLite search)', () => {
  it('covers a range with the fewest day, month and year words', async () => {
    const { dateRangeWords } = await import('../../src/features/submissions/submission-browse.repository.js');
    expect(dateRangeWords('2026-01-30', '2026-03-02')).toEqual(['d20260130', 'd20260131', 'm202602', 'd20260301', 'd20260302']);
    expect(dateRangeWords('2025-12-31', '2027-01-01')).toEqual(['d20251231', 'y2026', 'd20270101']);
    expect(dateRangeWords('2026-03-05', '2026-03-04')).toEqual([]);
    expect(dateRangeWords(undefined, '2001-02-03')).toEqual(['y2000', 'm200101', 'd20010201', 'd20010202', 'd20010203']);
  });

  it('finds a submission after it is marked spam, under the spam filter only', async () => {
    const { account, form } = await createOwner(services);
    const [id] = await insertSubmissions(services, form.id, [{ createdAt: at(15), payload: { m: 'marked later' } }]);
    await handle.db.updateTable('submissions').set({ is_spam: 1 }).where('id', '=', id!).execute();
    const find = (spam: boolean) => services.submissionBrowser.browse(account.id, form.id, { q: 'marked', spam, from: '2026-01-15', to: '2026-01-15' });
    expect((await find(true)).submissions.map((s) => s.id)).toEqual([id]);
    expect((await find(false)).submissions).toEqual([]);
  });
});

describe('search beyond the newest rows', () => {
  it('finds words only in old rows, and pages across the recent window in order', async () => {
    const { RECENT_WINDOW } = await import('../../src/features/submissions/submission-browse.repository.js');
    const { account, form } = await createOwner(services);
    const total = RECENT_WINDOW + 150;
    // "rare" only in the 3 oldest rows; "edge" every 40th row, straddling the window boundary.
    const ids = await insertSubmissions(
      services,
      form.id,
      Array.from({ length: total }, (_, i) => ({
        createdAt: new Date(Date.UTC(2026, 2, 1) + i * 1000).toISOString(),
        payload: { m: `${i < 3 ? 'rare ' : ''}${i % 40 === 0 ? 'edge ' : ''}filler ${i}` },
      })),
    );
    const rare = await services.submissionBrowser.browse(account.id, form.id, { q: 'rare' });
    expect(rare.submissions.map((s) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
    const expected = ids.filter((_, i) => i % 40 === 0).reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await services.submissionBrowser.browse(account.id, form.id, { q: 'edge', limit: 20, ...(cursor ? { cursor } : {}) });
      seen.push(...page.submissions.map((s) => s.id));
      cursor = page.olderCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(expected);
    expect((await services.submissionBrowser.browse(account.id, form.id, { q: 'absentword' })).submissions).toEqual([]);
  });
});

describe('a damaged stored payload', () => {
  it('can still be marked spam, deleted and searched around', async () => {
    const { account, form } = await createOwner(services);
    const [bad, good] = await insertSubmissions(services, form.id, [{ createdAt: at(25), payload: { m: 'fine words' } }, { createdAt: at(26), payload: { m: 'fine words' } }]);
    await handle.db.updateTable('submissions').set({ payload: '{broken' }).where('id', '=', bad!).execute();
    await handle.db.updateTable('submissions').set({ is_spam: 1 }).where('id', '=', bad!).execute();
    expect((await services.submissionBrowser.browse(account.id, form.id, { q: 'fine' })).submissions.map((s) => s.id)).toEqual([good]);
    expect(await services.lifecycle.deleteSubmissions(account.id, form.id, [bad!])).toBe(1);
  });
});
