import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner, insertSubmissions } from '../helpers/factories.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services);
});
afterAll(async () => t?.close());

interface ApiSubmission {
  id: string;
  isSpam: 0 | 1;
  createdAt: string;
  triage: { read: boolean; state: string; assignee: string | null; tags: string[] };
}
interface Page {
  submissions: ApiSubmission[];
  nextCursor: string | null;
}

async function list(formId: string, query: string): Promise<{ status: number; body: Page & { error?: string; fieldErrors?: Record<string, string> } }> {
  const res = await t.fetch(`/v1/api/forms/${formId}/submissions?${query}`, { headers: owner.auth });
  return { status: res.status, body: (await res.json()) as Page };
}

/** Six submissions on 1–6 March, the even days spam. */
async function formWithDays(): Promise<{ formId: string; ids: string[] }> {
  const form = await createForm(t.services, owner.account.id);
  const ids = await insertSubmissions(
    t.services,
    form.id,
    [1, 2, 3, 4, 5, 6].map((d) => ({ createdAt: `2026-03-0${d}T12:00:00.000Z`, isSpam: d % 2 === 0 })),
  );
  return { formId: form.id, ids };
}

const ids = (page: Page) => page.submissions.map((s) => s.id);

describe('list filters of the management API', () => {
  it('filters by spam, since (inclusive) and until (exclusive), each alone and together', async () => {
    const { formId, ids: all } = await formWithDays();
    expect(ids((await list(formId, 'spam=true')).body)).toEqual([all[5], all[3], all[1]]);
    expect(ids((await list(formId, 'spam=false')).body)).toEqual([all[4], all[2], all[0]]);
    expect(ids((await list(formId, '')).body)).toHaveLength(6);
    expect(ids((await list(formId, 'since=2026-03-04T12:00:00.000Z')).body)).toEqual([all[5], all[4], all[3]]);
    expect(ids((await list(formId, 'until=2026-03-03T12:00:00.000Z')).body)).toEqual([all[1], all[0]]);
    // A date is the start of that UTC day; an offset is honoured.
    expect(ids((await list(formId, 'since=2026-03-02&until=2026-03-05')).body)).toEqual([all[3], all[2], all[1]]);
    expect(ids((await list(formId, `since=${encodeURIComponent('2026-03-05T13:00+01:00')}&spam=false`)).body)).toEqual([all[4]]);
  });

  it('answers a bad value with validation_failed naming it', async () => {
    const { formId } = await formWithDays();
    for (const [query, field] of [
      ['spam=yes', 'spam'],
      ['spam=1', 'spam'],
      ['since=yesterday', 'since'],
      ['since=2026-02-30', 'since'],
      ['until=2026-03-01T10:00:00', 'until'],
      ['until=2026-03-01T25:00:00Z', 'until'],
      ['since=2026-03-05&until=2026-03-05', 'until'],
    ] as const) {
      const { status, body } = await list(formId, query);
      expect(status, query).toBe(400);
      expect(body.error).toBe('validation_failed');
      expect(Object.keys(body.fieldErrors ?? {}), query).toEqual([field]);
    }
  });

  it('a cursor keeps the filters it was made with; repeating them works, changing them is refused', async () => {
    const { formId, ids: all } = await formWithDays();
    const first = (await list(formId, 'spam=false&limit=2')).body;
    expect(ids(first)).toEqual([all[4], all[2]]);
    const cursor = encodeURIComponent(first.nextCursor!);
    // Left out: the cursor's filters still apply (no spam row slips in).
    expect(ids((await list(formId, `limit=2&cursor=${cursor}`)).body)).toEqual([all[0]]);
    expect(ids((await list(formId, `spam=false&limit=2&cursor=${cursor}`)).body)).toEqual([all[0]]);
    for (const changed of ['spam=true', 'since=2026-03-01', 'spam=false&until=2026-03-06']) {
      const { status, body } = await list(formId, `${changed}&limit=2&cursor=${cursor}`);
      expect(status, changed).toBe(400);
      expect(Object.keys(body.fieldErrors ?? {})).toEqual(['cursor']);
    }
    // A cursor of an unfiltered list refuses filters added later.
    const plain = (await list(formId, 'limit=2')).body;
    expect((await list(formId, `spam=true&cursor=${encodeURIComponent(plain.nextCursor!)}`)).status).toBe(400);
    // Paging a dated list to the end visits each match once.
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const page: Page = (await list(formId, `since=2026-03-02&until=2026-03-06&limit=1${next ? `&cursor=${encodeURIComponent(next)}` : ''}`)).body;
      seen.push(...ids(page));
      next = page.nextCursor;
    } while (next);
    expect(seen).toEqual([all[4], all[3], all[2], all[1]]);
  });
});

describe('triage in the API Submission', () => {
  it('starts unread, open, unassigned and untagged, and shows what the inbox changed (never the notes)', async () => {
    const form = await createForm(t.services, owner.account.id);
    const [a, b] = await insertSubmissions(t.services, form.id, [{ createdAt: '2026-05-01T00:00:00.000Z' }, { createdAt: '2026-05-02T00:00:00.000Z' }]);
    const get = async (id: string) => {
      const res = await t.fetch(`/v1/api/submissions/${id}`, { headers: owner.auth });
      expect(res.status).toBe(200);
      return (await res.json()) as { submission: ApiSubmission & Record<string, unknown> };
    };
    expect((await get(a!)).submission.triage).toEqual({ read: false, state: 'open', assignee: null, tags: [] });

    const accountId = owner.account.id;
    await t.services.inbox.apply(accountId, [a!], { kind: 'read' });
    await t.services.inbox.apply(accountId, [a!], { kind: 'done' });
    await t.services.inbox.apply(accountId, [a!], { kind: 'assign', memberId: accountId });
    await t.services.inbox.apply(accountId, [a!, b!], { kind: 'tag', tag: '  Urgent ' });
    await t.services.inbox.apply(accountId, [a!], { kind: 'tag', tag: 'billing' });
    await t.services.inbox.setNotes(accountId, a!, 'called back on Monday');
    const got = (await get(a!)).submission;
    expect(got.triage).toEqual({ read: true, state: 'done', assignee: owner.account.email, tags: ['billing', 'urgent'] });
    expect(JSON.stringify(got)).not.toContain('called back');

    const page = (await list(form.id, '')).body;
    expect(page.submissions.map((s) => s.triage)).toEqual([
      { read: false, state: 'open', assignee: null, tags: ['urgent'] },
      { read: true, state: 'done', assignee: owner.account.email, tags: ['billing', 'urgent'] },
    ]);

    await t.services.inbox.apply(accountId, [a!], { kind: 'assign', memberId: null });
    await t.services.inbox.apply(accountId, [a!], { kind: 'reopen' });
    await t.services.inbox.apply(accountId, [a!], { kind: 'unread' });
    await t.services.inbox.apply(accountId, [a!], { kind: 'untag', tag: 'URGENT' });
    expect((await get(a!)).submission.triage).toEqual({ read: false, state: 'open', assignee: null, tags: ['billing'] });
  });

  it('keeps to 10 tags of at most 40 characters, assigns only members, and ignores another account\'s submissions', async () => {
    const form = await createForm(t.services, owner.account.id);
    const [id] = await insertSubmissions(t.services, form.id, [{ createdAt: '2026-05-03T00:00:00.000Z' }]);
    const accountId = owner.account.id;
    for (let i = 0; i < 10; i++) await t.services.inbox.apply(accountId, [id!], { kind: 'tag', tag: `t${i}` });
    await expect(t.services.inbox.apply(accountId, [id!], { kind: 'tag', tag: 'eleventh' })).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { tag: expect.stringContaining('10 tags') } });
    // A tag it already has is no eleventh.
    await expect(t.services.inbox.apply(accountId, [id!], { kind: 'tag', tag: 'T3' })).resolves.toBe(1);
    await t.services.inbox.apply(accountId, [id!], { kind: 'untag', tag: 't0' });
    await expect(t.services.inbox.apply(accountId, [id!], { kind: 'tag', tag: 'x'.repeat(41) })).rejects.toMatchObject({ fieldErrors: { tag: expect.any(String) } });
    await expect(t.services.inbox.apply(accountId, [id!], { kind: 'tag', tag: 'a,b' })).rejects.toMatchObject({ fieldErrors: { tag: expect.any(String) } });
    await expect(t.services.inbox.apply(accountId, [id!], { kind: 'tag', tag: 'é'.repeat(40) })).resolves.toBe(1);
    expect((await t.services.inbox.triageOfOne(id!)).tags).toHaveLength(10);

    const stranger = await createOwner(t.services);
    await expect(t.services.inbox.apply(accountId, [id!], { kind: 'assign', memberId: stranger.account.id })).rejects.toMatchObject({ fieldErrors: { assignee: expect.any(String) } });
    expect(await t.services.inbox.apply(stranger.account.id, [id!], { kind: 'done' })).toBe(0);
    expect((await t.services.inbox.triageOfOne(id!)).state).toBe('open');
    await expect(t.services.inbox.setNotes(stranger.account.id, id!, 'x')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('goes with the submission when it is deleted', async () => {
    const form = await createForm(t.services, owner.account.id);
    const [id] = await insertSubmissions(t.services, form.id, [{ createdAt: '2026-05-04T00:00:00.000Z' }]);
    await t.services.inbox.apply(owner.account.id, [id!], { kind: 'tag', tag: 'gone' });
    await t.services.inbox.apply(owner.account.id, [id!], { kind: 'done' });
    await t.services.lifecycle.deleteSubmissions(owner.account.id, form.id, [id!]);
    const left = await t.handle.db.selectFrom('submission_triage').select('submission_id').where('submission_id', '=', id!).execute();
    const tags = await t.handle.db.selectFrom('submission_tags').select('tag').where('submission_id', '=', id!).execute();
    expect([left, tags]).toEqual([[], []]);
  });
});
