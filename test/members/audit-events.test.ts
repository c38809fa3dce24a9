import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';

// Submissions deleted, exported, erased and triaged, and a member's own password and email, are in
// the audit log with the member who did it, written in the change's transaction.
let t: AppUnderTest;
const PASSWORD = 'correct horse battery';

/** What the server logged at info level and above (an account deleted by its owner is logged there). */
const logLines: Array<{ level: number; msg: string; accountId?: string }> = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(JSON.parse(line) as (typeof logLines)[number]);
    done();
  },
});

async function signIn(email: string, password = PASSWORD): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password })).res.status).toBe(303);
  return client;
}

beforeAll(async () => {
  t = await buildTestApp({ env: { LOG_LEVEL: 'info' }, loggerInstance: pino({ level: 'info' }, logSink) });
});
afterAll(async () => {
  await t?.close();
});

describe('audit events of submissions', () => {
  it('records a member\'s deletion, export and erasure with the member as the actor', async () => {
    const account = await createAccount(t.services, { password: PASSWORD, planId: 'pro' });
    const form = await createForm(t.services, account.id);
    const memberEmail = `member-${Date.now()}@example.com`;
    const added = await t.services.members.add(account.id, { email: memberEmail, role: 'member', password: PASSWORD });
    const memberId = 'member' in added ? added.member.userId : '';
    const ids: string[] = [];
    for (const email of ['keep@example.com', 'gone@example.com', 'gone@example.com']) {
      const res = await submit(t, form.id, { json: { email } }, { accept: 'application/json' });
      ids.push(((await res.json()) as { submissionId: string }).submissionId);
    }
    const client = new DashboardClient(t);
    await client.get('/dashboard/login');
    expect((await client.post('/dashboard/login', { email: memberEmail, password: PASSWORD })).res.status).toBe(303);

    await client.get(`/dashboard/submissions/${ids[0]}`);
    expect((await client.post(`/dashboard/submissions/${ids[0]}/delete`, { confirm: '1' })).res.status).toBe(303);
    expect((await client.get(`/dashboard/forms/${form.id}/export.csv`)).res.status).toBe(200);
    await client.get('/dashboard/account');
    expect((await client.post('/dashboard/account/erase', { email: 'gone@example.com', confirm: '1' })).res.status).toBe(303);

    const events = await t.services.audit.listEvents(account.id);
    const actor = { type: 'user', id: memberId, label: memberEmail };
    expect(events.find((e) => e.action === 'submissions.deleted')).toMatchObject({ actor, target: { type: 'submission', id: ids[0] }, details: { formId: form.id, count: 1 } });
    expect(events.find((e) => e.action === 'submissions.exported')).toMatchObject({ actor, target: { type: 'form', id: form.id }, details: { format: 'csv', filtered: false } });
    const erased = events.find((e) => e.action === 'submissions.erased');
    expect(erased).toMatchObject({ actor, details: { count: 2 } });
    // The erased address is not kept in the log.
    expect(JSON.stringify(events)).not.toContain('gone@example.com');
  });
});

describe('the team inbox with members', () => {
  it('assigns a submission to any member of the account, shown by the member\'s email', async () => {
    const account = await createAccount(t.services, { password: PASSWORD, planId: 'pro' });
    const form = await createForm(t.services, account.id);
    const email = `assignee-${Date.now()}@example.com`;
    const added = await t.services.members.add(account.id, { email, role: 'member', password: PASSWORD });
    const memberId = 'member' in added ? added.member.userId : '';
    expect((await t.services.inbox.members(account.id)).map((m) => m.email)).toEqual([account.email, email]);
    const res = await submit(t, form.id, { json: { name: 'Ada' } }, { accept: 'application/json' });
    const { submissionId } = (await res.json()) as { submissionId: string };
    await t.services.inbox.apply(account.id, [submissionId], { kind: 'assign', memberId });
    expect((await t.services.submissionQueries.getSubmission(account.id, submissionId)).triage).toMatchObject({ assignee: email });
    // Someone who is not a member cannot be assigned.
    const stranger = await createAccount(t.services);
    await expect(t.services.inbox.apply(account.id, [submissionId], { kind: 'assign', memberId: stranger.id })).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

describe('audit events of triage', () => {
  it('records a member\'s assignment, state, tags and notes, by the member\'s email and never the notes\' text', async () => {
    const account = await createAccount(t.services, { password: PASSWORD, planId: 'pro' });
    const form = await createForm(t.services, account.id, { name: 'Support' });
    const email = `triager-${Date.now()}@example.com`;
    const added = await t.services.members.add(account.id, { email, role: 'member', password: PASSWORD });
    const memberId = 'member' in added ? added.member.userId : '';
    const ids: string[] = [];
    for (const name of ['Ada', 'Grace', 'Linus']) {
      const res = await submit(t, form.id, { json: { name } }, { accept: 'application/json' });
      ids.push(((await res.json()) as { submissionId: string }).submissionId);
    }
    const client = await signIn(email);
    const triage = async (body: Record<string, string>) => {
      expect((await client.post(`/dashboard/submissions/${ids[0]}/triage`, body)).res.status, body.action).toBe(303);
    };
    await client.get(`/dashboard/submissions/${ids[0]}`);
    await triage({ action: 'assign', assignee: memberId });
    await triage({ action: 'done' });
    await triage({ action: 'tag', tag: 'Urgent' });
    await triage({ action: 'untag', tag: 'urgent' });
    await triage({ action: 'notes', notes: 'Call back on Tuesday' });
    await triage({ action: 'notes', notes: 'Call back on Tuesday' });
    await triage({ action: 'notes', notes: '' });
    await triage({ action: 'assign', assignee: '' });
    await client.get(`/dashboard/forms/${form.id}/submissions`);
    const bulk = await client.postPairs(`/dashboard/forms/${form.id}/submissions/bulk`, [['action', 'reopen'], ['ids', ids[1]!], ['ids', ids[2]!]]);
    expect(bulk.res.status).toBe(303);

    const events = await t.services.audit.listEvents(account.id);
    const triaged = events.filter((e) => e.action.startsWith('submissions.') || e.action === 'submission.notes_changed');
    const actor = { type: 'user', id: memberId, label: email };
    const one = { type: 'submission', id: ids[0] };
    const where = { formId: form.id, form: 'Support' };
    expect(triaged.map((e) => [e.action, e.actor, e.target, e.details])).toEqual([
      ['submissions.state_changed', actor, null, { to: 'open', ...where, count: 2 }],
      ['submissions.assigned', actor, one, { assignee: null, ...where, count: 1 }],
      ['submission.notes_changed', actor, one, { ...where, cleared: true }],
      // Notes saved again unchanged wrote no second event.
      ['submission.notes_changed', actor, one, where],
      ['submissions.untagged', actor, one, { tag: 'urgent', ...where, count: 1 }],
      ['submissions.tagged', actor, one, { tag: 'urgent', ...where, count: 1 }],
      ['submissions.state_changed', actor, one, { to: 'done', ...where, count: 1 }],
      ['submissions.assigned', actor, one, { assignee: email, ...where, count: 1 }],
    ]);
    expect(JSON.stringify(events)).not.toContain('Tuesday');
  });
});

describe('audit events of a user\'s own login', () => {
  it('records password and email changes in every account the user belongs to; an owner\'s deletion of their account goes to the server log', async () => {
    const team = await createAccount(t.services, { password: PASSWORD, planId: 'pro' });
    const own = await createAccount(t.services, { password: PASSWORD });
    await t.services.members.add(team.id, { email: own.email, role: 'admin' });
    const client = await signIn(own.email);
    await client.get('/dashboard/account');
    const newPassword = 'a brand new password 42';
    expect((await client.post('/dashboard/account/password', { currentPassword: PASSWORD, newPassword })).res.status).toBe(303);
    const newEmail = `renamed-${Date.now()}@example.com`;
    await client.get('/dashboard/account');
    expect((await client.post('/dashboard/account/email', { email: newEmail, currentPassword: newPassword })).res.status).toBe(303);
    // A reset link's new password: the user acts, though no session says so.
    await t.services.accounts.setPassword(own.id, 'the reset password 7');

    const user = { type: 'user', id: own.id };
    for (const accountId of [team.id, own.id]) {
      const events = (await t.services.audit.listEvents(accountId)).filter((e) => e.action.startsWith('user.'));
      expect(events.map((e) => [e.action, e.actor, e.address, e.target, e.details]), accountId).toEqual([
        ['user.password_changed', { ...user, label: newEmail }, null, { ...user, label: newEmail }, { method: 'reset link' }],
        ['user.email_changed', { ...user, label: own.email }, '127.0.0.1', { ...user, label: own.email }, { from: own.email, to: newEmail }],
        ['user.password_changed', { ...user, label: own.email }, '127.0.0.1', { ...user, label: own.email }, { method: 'current password' }],
      ]);
      const stored = JSON.stringify(events);
      expect(stored).not.toContain(newPassword);
      expect(stored).not.toContain('the reset password 7');
    }

    // The owner deletes their own account: its log goes with it, and no other account of theirs gets the event.
    await client.get('/dashboard/account');
    const deleted = await client.post('/dashboard/account/delete', { confirmEmail: newEmail, currentPassword: 'the reset password 7' });
    expect(deleted.res.status).toBe(303);
    expect(await t.services.accounts.findAccount(own.id)).toBeUndefined();
    expect((await t.services.audit.listEvents(team.id)).some((e) => e.action === 'account.deleted')).toBe(false);
    expect(logLines.filter((line) => line.msg === 'account deleted by its owner')).toEqual([expect.objectContaining({ level: 30, accountId: own.id })]);
  });
});
