import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/features/members/member.types.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';

/** A team's inbox: who may be assigned, what a member's departure does, notes' authors, the CSV's inbox columns. */
const PASSWORD = 'correct horse battery';
const unique = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.com`;

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

async function signedIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  return client;
}

/** An owner with a form of three submissions and a member of each other role, each signed in. */
async function team() {
  const owner = await createAccount(t.services, { email: unique('owner'), password: PASSWORD, planId: 'business' });
  const form = await createForm(t.services, owner.id, { name: 'Support' });
  const ids = await insertSubmissions(
    t.services,
    form.id,
    ['a', 'b', 'c'].map((x, i) => ({ createdAt: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(), payload: { name: `Ada ${x}`, message: `help ${x}` } })),
  );
  const people = new Map<Role, { id: string; email: string }>([['owner', { id: owner.id, email: owner.email }]]);
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const added = await t.services.members.add(owner.id, { email: unique(role), role, password: PASSWORD });
    if (!('member' in added)) throw new Error('expected a member');
    people.set(role, { id: added.member.userId, email: added.member.email });
  }
  return { accountId: owner.id, form, ids, people, owner: await signedIn(owner.email) };
}

const list = (formId: string) => `/dashboard/forms/${formId}/submissions`;
const idsOn = (html: string) => [...html.matchAll(/name="ids" value="([^"]+)"/g)].map((m) => m[1]).sort();
const optionsOf = (html: string, select: string) => {
  const start = html.indexOf(select);
  return [...html.slice(start, html.indexOf('</select>', start)).matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
};

describe(`the team inbox's people on ${testDialect}`, () => {
  it('filters by any member who may triage, offers no viewer, and ignores another account\'s member', async () => {
    const { form, ids, people, owner, accountId } = await team();
    const member = people.get('member')!;
    await t.services.inbox.apply(accountId, [ids[0]!, ids[1]!], { kind: 'assign', memberId: member.id });
    await t.services.inbox.apply(accountId, [ids[2]!], { kind: 'assign', memberId: people.get('admin')!.id });

    const page = await owner.get(list(form.id));
    const filterChoices = optionsOf(page.html, '<select name="assignee">');
    expect(filterChoices).toEqual(expect.arrayContaining(['', 'me', 'none', member.id, people.get('admin')!.id, people.get('owner')!.id]));
    expect(filterChoices).not.toContain(people.get('viewer')!.id);
    expect(optionsOf(page.html, 'id="bulk-assignee"')).not.toContain(people.get('viewer')!.id);
    expect(idsOn((await owner.get(`${list(form.id)}?assignee=${member.id}`)).html)).toEqual([ids[0], ids[1]].sort());
    expect((await owner.get(`${list(form.id)}?assignee=${member.id}`)).html).toContain('Showing 1–2 of 2 matches');

    // Someone else's member: treated as any assignee, so the answer says nothing about them.
    const stranger = await createAccount(t.services, { email: unique('stranger'), password: PASSWORD });
    const foreign = await owner.get(`${list(form.id)}?assignee=${stranger.id}`);
    expect(foreign.res.status).toBe(200);
    expect(idsOn(foreign.html)).toEqual([...ids].sort());
    expect(optionsOf(foreign.html, '<select name="assignee">')).not.toContain(stranger.id);
    const csv = await owner.get(`/dashboard/forms/${form.id}/export.csv?spam=0&assignee=${stranger.id}`);
    expect(csv.html.trimEnd().split('\r\n')).toHaveLength(4);
  });

  it('refuses to assign a viewer or another account\'s member, and a viewer cannot assign', async () => {
    const { form, ids, people, owner, accountId } = await team();
    const stranger = await createAccount(t.services, { email: unique('stranger'), password: PASSWORD });
    for (const assignee of [people.get('viewer')!.id, stranger.id]) {
      await owner.get(`/dashboard/submissions/${ids[0]}`);
      const res = await owner.post(`/dashboard/submissions/${ids[0]}/triage`, { action: 'assign', assignee });
      expect(res.res.status).toBe(303);
      expect((await owner.get(res.res.headers.get('location')!)).html).toContain('Not saved: That person cannot be assigned here.');
      expect((await t.services.inbox.triageOfOne(ids[0]!)).assigneeId).toBeNull();
    }
    await owner.get(list(form.id));
    const bulk = await owner.postPairs(`${list(form.id)}/bulk`, [['action', 'assign'], ['assignee', stranger.id], ['ids', ids[1]!], ['back', `${list(form.id)}?x=1`]]);
    expect((await owner.get(bulk.res.headers.get('location')!)).html).toContain('Nothing was changed: That person cannot be assigned here.');
    expect(await t.services.inbox.apply(accountId, [ids[1]!], { kind: 'assign', memberId: people.get('member')!.id })).toBe(1);

    const viewer = await signedIn(people.get('viewer')!.email);
    const page = await viewer.get(`/dashboard/submissions/${ids[1]}`);
    expect(page.html).toContain(`<dd id="assignee">${people.get('member')!.email}</dd>`);
    expect(page.html).not.toContain('value="assign"');
    const refused = await viewer.post(`/dashboard/submissions/${ids[1]}/triage`, { action: 'assign', assignee: people.get('viewer')!.id });
    expect(refused.res.status).toBe(403);
    const refusedBulk = await viewer.postPairs(`${list(form.id)}/bulk`, [['action', 'assign-me'], ['ids', ids[1]!]]);
    expect(refusedBulk.res.status).toBe(403);
    expect((await t.services.inbox.triageOfOne(ids[1]!)).assigneeId).toBe(people.get('member')!.id);
  });

  it('assigns in bulk to a chosen member', async () => {
    const { form, ids, people, owner } = await team();
    await owner.get(list(form.id));
    const res = await owner.postPairs(`${list(form.id)}/bulk`, [['action', 'assign'], ['assignee', people.get('admin')!.id], ['ids', ids[0]!], ['ids', ids[2]!], ['back', `${list(form.id)}?x=1`]]);
    expect((await owner.get(res.res.headers.get('location')!)).html).toContain(`Assigned 2 submissions to ${people.get('admin')!.email}.`);
    const states = await t.services.inbox.triageOf(ids);
    expect(ids.map((id) => states.get(id)!.assignee)).toEqual([people.get('admin')!.email, null, people.get('admin')!.email]);
    const none = await owner.postPairs(`${list(form.id)}/bulk`, [['action', 'assign'], ['assignee', ''], ['ids', ids[0]!], ['back', `${list(form.id)}?x=1`]]);
    expect((await owner.get(none.res.headers.get('location')!)).html).toContain('Nothing was changed: choose whom to assign them to.');
    expect((await t.services.inbox.triageOfOne(ids[0]!)).assignee).toBe(people.get('admin')!.email);
  });

  it('clears the assignments of a member who is removed, leaves or becomes a viewer, in one audit event each', async () => {
    const { form, ids, people, owner, accountId } = await team();
    const member = people.get('member')!;
    const admin = people.get('admin')!;
    await t.services.inbox.apply(accountId, [ids[0]!, ids[1]!], { kind: 'assign', memberId: member.id });
    await t.services.inbox.apply(accountId, [ids[2]!], { kind: 'assign', memberId: admin.id });
    expect(idsOn((await owner.get(`${list(form.id)}?assignee=none`)).html)).toEqual([]);

    await owner.get('/dashboard/members');
    await t.services.members.remove(accountId, { userId: member.id }, people.get('owner')!.id);
    const listed = await owner.get(list(form.id));
    expect(listed.html).not.toContain(member.email);
    expect(idsOn((await owner.get(`${list(form.id)}?assignee=none`)).html)).toEqual([ids[0], ids[1]].sort());
    expect((await owner.get(`/dashboard/submissions/${ids[0]}`)).html).toMatch(/<option value="" selected>Nobody<\/option>/);
    const events = (await t.services.audit.listEvents(accountId)).filter((e) => e.action === 'submissions.assigned' && e.details?.from === member.email);
    expect(events).toHaveLength(1);
    expect(events[0]!.details).toMatchObject({ assignee: null, because: 'removed', count: 2 });

    // Made a viewer: cannot triage, so nothing stays assigned to them either.
    await t.services.members.setRole(accountId, { userId: admin.id }, 'viewer');
    expect((await t.services.inbox.triageOfOne(ids[2]!)).assignee).toBeNull();
    expect((await t.services.audit.listEvents(accountId)).some((e) => e.action === 'submissions.assigned' && e.details?.because === 'role_changed' && e.details?.from === admin.email)).toBe(true);

    // A member who leaves; a role change among triagers keeps what is theirs.
    await t.services.members.setRole(accountId, { userId: admin.id }, 'member');
    await t.services.inbox.apply(accountId, [ids[2]!], { kind: 'assign', memberId: admin.id });
    await t.services.members.setRole(accountId, { userId: admin.id }, 'admin');
    expect((await t.services.inbox.triageOfOne(ids[2]!)).assignee).toBe(admin.email);
    await t.services.members.leave(accountId, admin.id);
    expect((await t.services.inbox.triageOfOne(ids[2]!)).assignee).toBeNull();
  });

  it('shows who wrote the notes and when, and the CSV carries state, assignee and tags', async () => {
    const { form, ids, people, accountId } = await team();
    const member = await signedIn(people.get('member')!.email);
    await member.get(`/dashboard/submissions/${ids[0]}`);
    await member.post(`/dashboard/submissions/${ids[0]}/triage`, { action: 'notes', notes: 'Called back.' });
    const triage = await t.services.inbox.triageOfOne(ids[0]!);
    expect(triage).toMatchObject({ notes: 'Called back.', notesBy: people.get('member')!.email });
    expect(Date.parse(triage.notesAt!)).toBeGreaterThan(Date.now() - 60_000);
    const page = await member.get(`/dashboard/submissions/${ids[0]}`);
    expect(page.html).toContain(`Last written by ${people.get('member')!.email}, <time datetime="${triage.notesAt}"`);
    const viewer = await signedIn(people.get('viewer')!.email);
    expect((await viewer.get(`/dashboard/submissions/${ids[0]}`)).html).toContain(`Written by ${people.get('member')!.email}`);

    await t.services.inbox.apply(accountId, [ids[0]!], { kind: 'assign', memberId: people.get('member')!.id });
    await t.services.inbox.apply(accountId, [ids[0]!], { kind: 'done' });
    await t.services.inbox.apply(accountId, [ids[0]!], { kind: 'tag', tag: 'refund' });
    await t.services.inbox.apply(accountId, [ids[0]!], { kind: 'tag', tag: '=cmd()' });
    const csv = (await viewer.get(`/dashboard/forms/${form.id}/export.csv`)).html.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(csv[0]).toBe('createdAt,name,message,id,isSpam,spamReason,country,state,assignee,tags');
    const row = csv.find((line) => line.includes(ids[0]!))!;
    expect(row.endsWith(`,done,${people.get('member')!.email},"'=cmd(); refund"`)).toBe(true);
    expect(csv.find((line) => line.includes(ids[1]!))!.endsWith(',open,,')).toBe(true);
  });
});
