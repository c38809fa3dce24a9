import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';

// Contract section 17: submissions deleted, exported and erased are in the audit log, with the
// member who did it, written in the change's transaction.
let t: TestApp;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  t = await startTestApp();
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
    const client = new DashboardClient(t.url);
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
