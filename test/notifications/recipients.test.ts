import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';
import { createOwner, insertSubmissions } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

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

const address = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;
const linkOf = (text: string) => /https:\/\/forms\.example\.com(\/dashboard\/verify-email\/[A-Za-z0-9_-]+)/.exec(text)![1]!;

async function confirmByPage(link: string): Promise<void> {
  const visitor = new DashboardClient(t);
  await visitor.get(link);
  expect((await visitor.post(link, {})).res.status).toBe(200);
}

describe(`recipients verified per account on ${testDialect}`, () => {
  it('takes an address confirmed on one form as confirmed on the account\'s other forms, without a new link', async () => {
    const a = address('a');
    const owner = await createOwner(t.services);
    const second = await t.services.forms.createForm(owner.account.id, { name: 'Second' });
    await t.services.notifications.setRecipients(owner.form.id, [a], { verified: false, accountId: owner.account.id });
    await waitFor(() => sink.to(a).length === 1, 15_000, 'the verification email');
    await confirmByPage(linkOf(sink.to(a)[0]!.parsed.text!));

    await t.services.notifications.setRecipients(second.id, [a], { verified: false, accountId: owner.account.id });
    expect((await t.services.notifications.listRecipients(second.id)).map((r) => r.state)).toEqual(['verified']);
    const res = await submit(t, second.id, { json: { message: 'to the second form' } }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    await waitFor(() => sink.to(a).some((m) => m.parsed.headers.get('x-formgate-submission-id') === submissionId), 15_000, 'the notification');
    // No second verification email went out.
    expect(sink.to(a).filter((m) => m.parsed.subject?.startsWith('Confirm notifications'))).toHaveLength(1);

    // Another account's confirmation counts for nothing here.
    const stranger = await createOwner(t.services);
    await t.services.notifications.setRecipients(stranger.form.id, [a], { verified: false, accountId: stranger.account.id });
    expect((await t.services.notifications.listRecipients(stranger.form.id)).map((r) => r.state)).toEqual(['pending']);
  });

  it('confirms the address on every form of the account that waits for it, and sends what each held', async () => {
    const b = address('b');
    const owner = await createOwner(t.services);
    const second = await t.services.forms.createForm(owner.account.id, { name: 'Second' });
    await t.services.notifications.setRecipients(owner.form.id, [b], { verified: false, accountId: owner.account.id });
    await t.services.notifications.setRecipients(second.id, [b], { verified: false, accountId: owner.account.id });
    await waitFor(() => sink.to(b).length === 2, 15_000, 'two verification emails');
    const ids: string[] = [];
    for (const formId of [owner.form.id, second.id]) {
      const res = await submit(t, formId, { json: { message: 'while waiting' } }, JSON_ACCEPT);
      ids.push(((await res.json()) as { submissionId: string }).submissionId);
    }
    await t.services.outbox.settle();
    expect(sink.to(b)).toHaveLength(2);

    await confirmByPage(linkOf(sink.to(b)[0]!.parsed.text!));
    expect((await t.services.notifications.listRecipients(second.id)).map((r) => r.state)).toEqual(['verified']);
    await waitFor(() => ids.every((id) => sink.to(b).some((m) => m.parsed.headers.get('x-formgate-submission-id') === id)), 15_000, 'both held emails');
  });

  it('holds the digest of an unconfirmed address and sends it once confirmed; a removed address\'s held mail is recorded as not sent', async () => {
    const d = address('d');
    const owner = await createOwner(t.services, { form: { name: 'Digest' } });
    await t.services.forms.updateForm(owner.form.id, { notifyMode: 'hourly' });
    await t.services.notifications.setRecipients(owner.form.id, [d], { verified: false, accountId: owner.account.id });
    await waitFor(() => sink.to(d).length === 1, 15_000, 'the verification email');
    await insertSubmissions(t.services, owner.form.id, [{ createdAt: '2031-03-01T09:10:00.000Z', payload: { seq: 'held-item' } }]);
    expect(await t.services.notifications.queueDueDigests(new Date('2031-03-01T10:00:30.000Z'))).toBe(0);
    const log = await t.services.notifications.emailLog(owner.account.id, owner.form.id);
    expect(log.filter((m) => m.kind === 'digest').map((m) => m.state)).toEqual(['held']);

    await confirmByPage(linkOf(sink.to(d)[0]!.parsed.text!));
    await waitFor(() => sink.to(d).some((m) => m.parsed.text?.includes('held-item')), 15_000, 'the held digest');

    const e = address('e');
    await t.services.notifications.setRecipients(owner.form.id, [e], { verified: false, accountId: owner.account.id });
    await insertSubmissions(t.services, owner.form.id, [{ createdAt: '2031-03-01T10:10:00.000Z', payload: { seq: 'never' } }]);
    await t.services.notifications.queueDueDigests(new Date('2031-03-01T11:00:30.000Z'));
    await t.services.notifications.setRecipients(owner.form.id, [], { verified: false, accountId: owner.account.id });
    // Released to the outbox, which skips it: the address is gone.
    const digestsTo = async () => (await t.services.notifications.emailLog(owner.account.id, owner.form.id)).filter((m) => m.to === e && m.kind === 'digest');
    await waitFor(async () => (await digestsTo())[0]?.state === 'skipped', 15_000, 'the skip');
    expect((await digestsTo()).map((m) => [m.state, m.skipReason, m.attempts])).toEqual([['skipped', 'recipient_not_verified', []]]);
  });

  it('says times in the zone the account\'s browser last reported, named, as the dashboard does', async () => {
    const [z, ownerEmail] = [address('z'), address('owner')];
    const dashboard = new DashboardClient(t);
    dashboard.cookies.set('fg_tz', 'Europe/Berlin');
    await dashboard.signUp(ownerEmail);
    await dashboard.get('/dashboard/forms');
    const account = (await t.services.accounts.findAccountByEmail(ownerEmail))!;
    expect(account.timeZone).toBe('Europe/Berlin');
    const form = await t.services.forms.createForm(account.id, { name: 'Zoned' });
    await t.services.notifications.setRecipients(form.id, [z], { verified: true });
    await submit(t, form.id, { json: { message: 'zoned' } }, JSON_ACCEPT);
    await waitFor(() => sink.to(z).length === 1, 15_000, 'the notification');
    expect(sink.to(z)[0]!.parsed.text).toMatch(/\ntime: \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d CES?T\n/);
    // A garbage cookie changes nothing.
    dashboard.cookies.set('fg_tz', 'Not/AZone');
    await dashboard.get('/dashboard/forms');
    expect((await t.services.accounts.findAccount(account.id))!.timeZone).toBe('Europe/Berlin');
  });
});
