import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { insertSubmissions } from '../helpers/factories.js';
import { storedSubmission } from '../helpers/submit.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

async function ownerWithForm(email: string) {
  const client = new DashboardClient(t);
  await client.signUp(email);
  await client.get('/dashboard/forms');
  const created = await client.post('/dashboard/forms', { name: 'Inbox' });
  const formId = created.res.headers.get('location')!.split('/')[3]!;
  const account = (await t.services.accounts.findAccountByEmail(email))!;
  return { client, formId, accountId: account.id };
}

/** `n` submissions a second apart (newest last), each `{ message }`. */
function rows(n: number, message: string, start = Date.UTC(2026, 5, 1)) {
  return Array.from({ length: n }, (_, i) => ({ createdAt: new Date(start + i * 1000).toISOString(), payload: { message: `${message} ${i}` } }));
}

const formRow = (html: string, formId: string) => html.slice(html.indexOf(`data-form="${formId}"`), html.indexOf('</tr>', html.indexOf(`data-form="${formId}"`)));

describe('the team inbox in the dashboard', () => {
  it('opening a submission marks it read; the forms list counts unread and open inbox submissions', async () => {
    const { client, formId } = await ownerWithForm('inbox-read@example.com');
    const [a, b] = await insertSubmissions(t.services, formId, rows(3, 'hello'));
    await insertSubmissions(t.services, formId, [{ createdAt: '2026-06-02T00:00:00.000Z', isSpam: true }]);
    let forms = (await client.get('/dashboard/forms')).html;
    expect(formRow(forms, formId)).toMatch(/class="num unread-count"><a href="[^"]+\?read=unread">3<\/a>/);
    expect(formRow(forms, formId)).toMatch(/class="num open-count"><a href="[^"]+\?state=open">3<\/a>/);

    const list = (await client.get(`/dashboard/forms/${formId}/submissions`)).html;
    expect(list.match(/class="badge unread-badge"/g)).toHaveLength(3);
    const page = await client.get(`/dashboard/submissions/${a}`);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('id="triage-state" class="badge ">Open</span>');
    expect((await t.services.inbox.triageOfOne(a!)).read).toBe(true);
    await client.post(`/dashboard/submissions/${b}/triage`, { action: 'done' });
    forms = (await client.get('/dashboard/forms')).html;
    expect(formRow(forms, formId)).toContain('?read=unread">2</a>');
    expect(formRow(forms, formId)).toContain('?state=open">2</a>');

    // "Mark unread" from the page goes back to the list, so the page does not mark it read again.
    await client.get(`/dashboard/submissions/${a}`);
    const unread = await client.post(`/dashboard/submissions/${a}/triage`, { action: 'unread' });
    expect(unread.res.headers.get('location')).toBe(`/dashboard/forms/${formId}/submissions`);
    expect((await t.services.inbox.triageOfOne(a!)).read).toBe(false);
    const filtered = (await client.get(`/dashboard/forms/${formId}/submissions?read=unread`)).html;
    expect(filtered).toContain('Showing 1–3 of 3 matches');
  });

  it('applies each bulk action to the ticked rows, and each filter finds them', async () => {
    const { client, formId, accountId } = await ownerWithForm('inbox-bulk@example.com');
    const [a, b, c] = await insertSubmissions(t.services, formId, rows(3, 'bulk'));
    const list = `/dashboard/forms/${formId}/submissions`;
    const bulk = async (action: string, ids: string[], extra: Array<[string, string]> = []) => {
      await client.get(list);
      const res = await client.postPairs(`${list}/bulk`, [['action', action], ['back', `${list}?x=1`], ...ids.map((id): [string, string] => ['ids', id]), ...extra]);
      expect(res.res.status).toBe(303);
      return (await client.get(res.res.headers.get('location')!)).html;
    };
    expect(await bulk('done', [a!, b!])).toContain('Marked 2 submissions done.');
    expect(await bulk('assign-me', [b!])).toContain('Assigned 1 submission to you.');
    expect(await bulk('tag', [b!, c!], [['tag', 'Refund']])).toContain('Tagged 2 submissions “refund”.');
    expect(await bulk('read', [c!])).toContain('Marked 1 submission read.');
    const found = async (query: string) => [...(await client.get(`${list}?${query}`)).html.matchAll(/name="ids" value="([^"]+)"/g)].map((m) => m[1]).sort();
    expect(await found('state=done')).toEqual([a, b].sort());
    expect(await found('state=open')).toEqual([c]);
    expect(await found('assignee=me')).toEqual([b]);
    expect(await found('assignee=none')).toEqual([a, c].sort());
    expect(await found('tag=refund')).toEqual([b, c].sort());
    expect(await found('read=read')).toEqual([c]);
    expect(await found('read=unread&state=done&tag=refund')).toEqual([b]);
    expect(await found('q=bulk&tag=refund&assignee=me')).toEqual([b]);

    expect(await bulk('untag', [b!], [['tag', 'refund']])).toContain('Removed the tag “refund” from 1 submission.');
    expect(await bulk('reopen', [a!])).toContain('Reopened 1 submission.');
    expect(await bulk('unassign', [b!])).toContain('Unassigned 1 submission.');
    expect(await bulk('unread', [c!])).toContain('Marked 1 submission unread.');
    expect(await t.services.inbox.triageOf([a!, b!, c!])).toEqual(
      new Map([
        [a, { read: false, state: 'open', assigneeId: null, assignee: null, tags: [], notes: '', notesBy: null, notesAt: null }],
        [b, { read: false, state: 'done', assigneeId: null, assignee: null, tags: [], notes: '', notesBy: null, notesAt: null }],
        [c, { read: false, state: 'open', assigneeId: null, assignee: null, tags: ['refund'], notes: '', notesBy: null, notesAt: null }],
      ]),
    );
    // An eleventh tag is refused with a message, and nothing changes.
    for (let i = 0; i < 9; i++) await t.services.inbox.apply(accountId, [c!], { kind: 'tag', tag: `t${i}` });
    expect(await bulk('tag', [a!, c!], [['tag', 'more']])).toContain('Nothing was changed: A submission has at most 10 tags.');
    expect((await t.services.inbox.triageOfOne(a!)).tags).toEqual([]);
  });

  it('"all matching" applies to every submission the filter matches, beyond the page, and nothing else', async () => {
    const { client, formId, accountId } = await ownerWithForm('inbox-all@example.com');
    const matching = await insertSubmissions(t.services, formId, rows(60, 'invoice'));
    const others = await insertSubmissions(t.services, formId, rows(5, 'other', Date.UTC(2026, 6, 1)));
    await t.services.inbox.apply(accountId, matching, { kind: 'tag', tag: 'billing' });
    const list = `/dashboard/forms/${formId}/submissions`;
    const page = (await client.get(`${list}?tag=billing`)).html;
    expect(page).toContain('Showing 1–50 of 60 matches');
    expect(page).toContain('All 60 matching (not only the ticked)');
    const res = await client.postPairs(`${list}/bulk`, [['action', 'done'], ['scope', 'all'], ['back', `${list}?tag=billing`]]);
    expect(res.res.headers.get('location')).toBe(`${list}?tag=billing`);
    expect((await client.get(`${list}?tag=billing`)).html).toContain('Marked 60 submissions done.');
    const states = await t.services.inbox.triageOf([...matching, ...others]);
    expect(matching.every((id) => states.get(id)!.state === 'done')).toBe(true);
    expect(others.every((id) => states.get(id)!.state === 'open')).toBe(true);

    // Delete all matching asks first, naming how many, and carries the filter, not 60 IDs.
    await client.get(`${list}?q=other`);
    const ask = await client.postPairs(`${list}/bulk`, [['action', 'delete'], ['scope', 'all'], ['back', `${list}?q=other`]]);
    expect(ask.html).toContain('Delete 5 submissions?');
    expect(ask.html).toContain('All 5 submissions matching the filter');
    expect(ask.html).toContain('name="scope" value="all"');
    expect(ask.html).not.toContain('name="ids"');
    await client.postPairs(`${list}/bulk`, [['action', 'delete'], ['scope', 'all'], ['confirm', '1'], ['back', `${list}?q=other`]]);
    expect(await Promise.all(others.map((id) => storedSubmission(t, id)))).toEqual(others.map(() => undefined));
    expect(await storedSubmission(t, matching[0]!)).toBeDefined();
  });

  it('"Mark not spam" first says what it will send; with nothing to send on it just marks', async () => {
    const { client, formId, accountId } = await ownerWithForm('inbox-notspam@example.com');
    await t.services.accounts.setPlan(accountId, 'pro');
    await t.services.hooks.createHook(accountId, { formId, targetUrl: 'https://hooks.example.com/formgate' });
    const held = await insertSubmissions(t.services, formId, rows(2, 'held', Date.UTC(2026, 7, 1)).map((r) => ({ ...r, isSpam: true })));
    const list = `/dashboard/forms/${formId}/submissions`;
    await client.get(`${list}?spam=1`);
    const ask = await client.postPairs(`${list}/bulk`, [['action', 'not-spam'], ['back', `${list}?spam=1`], ...held.map((id): [string, string] => ['ids', id])]);
    expect(ask.res.status).toBe(200);
    expect(ask.html).toContain('Mark 2 submissions not spam?');
    expect(ask.html).toMatch(/<li>a hook delivery to the hook at hooks\.example\.com<\/li>/);
    expect((await storedSubmission(t, held[0]!))!.is_spam).toBe(1);
    const done = await client.postPairs(`${list}/bulk`, [['action', 'not-spam'], ['confirm', '1'], ['back', `${list}?spam=1`], ...held.map((id): [string, string] => ['ids', id])]);
    expect(done.res.status).toBe(303);
    expect((await storedSubmission(t, held[0]!))!).toMatchObject({ is_spam: 0, outbound_released: 1 });

    // Marked spam again and back: nothing would be sent twice, so no question.
    await t.services.triage.markSubmissions(held, true, accountId);
    await client.get(`${list}?spam=1`);
    const again = await client.postPairs(`${list}/bulk`, [['action', 'not-spam'], ['back', `${list}?spam=1`], ...held.map((id): [string, string] => ['ids', id])]);
    expect(again.res.status).toBe(303);
    expect((await storedSubmission(t, held[1]!))!.is_spam).toBe(0);
    // Every mark is a lesson: the last one taught the learning filter these two are not spam.
    const status = await t.services.spamFilter.status(accountId);
    expect(status.ham).toBe(2);
  });

  it('says when From is after To, and shows a search\'s total', async () => {
    const { client, formId } = await ownerWithForm('inbox-dates@example.com');
    await insertSubmissions(t.services, formId, [...rows(3, 'refund'), ...rows(2, 'hello', Date.UTC(2026, 5, 2))]);
    const list = `/dashboard/forms/${formId}/submissions`;
    const swapped = await client.get(`${list}?from=2026-06-05&to=2026-06-01`);
    expect(swapped.res.status).toBe(400);
    expect(swapped.html).toContain('id="to-error">Choose a To date on or after the From date</p>');
    expect(swapped.html).not.toContain('No submissions match');
    expect((await client.get(`${list}?q=refund`)).html).toContain('Showing 1–3 of 3 matches');
    expect((await client.get(`${list}?q=nothing-like-it`)).html).toContain('No submissions match.');
  });
});
