import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressHash } from '../../src/features/notifications/confirmation.js';
import { insertSuppression } from '../../src/features/notifications/confirmation.repository.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';

const PASSWORD = 'correct horse battery';
const unique = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;

let sink: SmtpSink;
let t: AppUnderTest;
beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, BASE_URL: 'https://forms.example.com' } });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

async function signedIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  return client;
}

/** The email messages queued to an address, sent or not: what the outbox holds for it. */
async function queuedTo(address: string): Promise<number> {
  const rows = await t.services.handle.db.selectFrom('email_messages').select('id').where('to_address', '=', address).where('kind', '=', 'assignment').execute();
  return rows.length;
}

describe(`an email when someone else assigns you submissions, on ${testDialect}`, () => {
  it('emails the assignee a link to the submission, never for assigning oneself or for a repeat', async () => {
    const owner = await createAccount(t.services, { email: unique('owner'), password: PASSWORD });
    const form = await createForm(t.services, owner.id, { name: 'Refunds <desk>' });
    const ids = await insertSubmissions(t.services, form.id, [0, 1, 2].map((i) => ({ createdAt: new Date(Date.UTC(2026, 10, 2) + i).toISOString(), payload: { message: `secret text ${i}` } })));
    const memberEmail = unique('member');
    const added = await t.services.members.add(owner.id, { email: memberEmail, role: 'member', password: PASSWORD });
    const memberId = 'member' in added ? added.member.userId : '';
    const client = await signedIn(owner.email);

    await client.get(`/dashboard/submissions/${ids[0]}`);
    expect((await client.post(`/dashboard/submissions/${ids[0]}/triage`, { action: 'assign', assignee: memberId })).res.status).toBe(303);
    await waitFor(() => sink.to(memberEmail).length === 1, 15_000, 'the assignment email');
    const mail = sink.to(memberEmail)[0]!.parsed;
    expect(mail.subject).toBe('Assigned to you: a submission (Refunds <desk>)');
    expect(mail.text).toContain(`${owner.email} assigned you a submission of the form “Refunds <desk>” on Formgate.`);
    expect(mail.text).toContain(`https://forms.example.com/dashboard/submissions/${ids[0]}`);
    expect(mail.text).not.toContain('secret text');
    expect(mail.html).toContain(`<a href="https://forms.example.com/dashboard/submissions/${ids[0]}">Open the submission</a> (Refunds &lt;desk&gt;)`);

    // The same assignment again, and the member assigning themselves: nothing more is sent.
    await client.post(`/dashboard/submissions/${ids[0]}/triage`, { action: 'assign', assignee: memberId });
    const member = await signedIn(memberEmail);
    await member.get(`/dashboard/forms/${form.id}/submissions`);
    await member.postPairs(`/dashboard/forms/${form.id}/submissions/bulk`, [['action', 'assign-me'], ['ids', ids[1]!]]);
    expect((await t.services.inbox.triageOfOne(ids[1]!)).assignee).toBe(memberEmail);
    // Two in one go, one of them theirs already: one email, naming only the new one.
    await client.get(`/dashboard/forms/${form.id}/submissions`);
    await client.postPairs(`/dashboard/forms/${form.id}/submissions/bulk`, [['action', 'assign'], ['assignee', memberId], ['ids', ids[1]!], ['ids', ids[2]!]]);
    await waitFor(() => sink.to(memberEmail).length === 2, 15_000, 'the second assignment email');
    const second = sink.to(memberEmail)[1]!.parsed;
    expect(second.subject).toBe('Assigned to you: a submission (Refunds <desk>)');
    expect(second.text).toContain(`/dashboard/submissions/${ids[2]}`);
    expect(second.text).not.toContain(`/dashboard/submissions/${ids[1]}`);
    expect(await queuedTo(memberEmail)).toBe(2);
  });

  it('sends nothing to an address on the suppression list', async () => {
    const owner = await createAccount(t.services, { email: unique('owner'), password: PASSWORD });
    const form = await createForm(t.services, owner.id);
    const [id] = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString(), payload: { message: 'hi' } }]);
    const quiet = unique('quiet');
    const added = await t.services.members.add(owner.id, { email: quiet, role: 'admin', password: PASSWORD });
    await insertSuppression(t.services.handle.db, { address_hash: addressHash(quiet), reason: 'unsubscribe', created_at: new Date().toISOString() });
    const assigned = await t.services.inbox.apply(owner.id, [id!], { kind: 'assign', memberId: 'member' in added ? added.member.userId : '' }, { userId: owner.id, email: owner.email });
    expect(assigned).toBe(1);
    expect((await t.services.inbox.triageOfOne(id!)).assignee).toBe(quiet);
    expect(await queuedTo(quiet)).toBe(0);
  });
});
