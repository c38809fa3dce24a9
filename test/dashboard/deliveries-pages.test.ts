import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { expectCsrfRefused } from '../helpers/csrf.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

// Sending again on the dashboard: a submission's page lists every message it caused, and
// "Send again" queues one new attempt; the hooks page sends a span's failed deliveries again.
let receiver: HttpsReceiver;
let sink: SmtpSink;
let t: AppUnderTest;
let client: DashboardClient;
let accountId: string;
let formId: string;
let hookId: string;
const visitor = `visitor-${randomBase62(6).toLowerCase()}@example.net`;
const owner = `owner-${randomBase62(6).toLowerCase()}@example.net`;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: sink.url, MAIL_RETRY_BASE_MS: '100' }, hookTransport: { ca: receiver.ca } });
  client = new DashboardClient(t);
  const email = `dash-${randomBase62(6).toLowerCase()}@example.com`;
  await client.signUp(email);
  const account = await t.handle.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  accountId = account.id;
  await t.handle.db.updateTable('accounts').set({ plan_id: 'pro' }).where('id', '=', accountId).execute();
  formId = (await t.services.forms.createForm(accountId, { name: 'Contact', autoReply: { enabled: true } })).id;
  await t.services.notifications.setRecipients(formId, [owner], { verified: true });
  hookId = (await t.services.hooks.createHook(accountId, { formId, targetUrl: `${receiver.url}/in` })).hook.id;
  await t.services.integrations.addIntegration(formId, { kind: 'slack', name: 'Team chat', url: `${receiver.url}/slack` }, accountId);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await sink?.close();
});

const hookCalls = () => receiver.received.filter((r) => r.url === '/in');

describe('the submission page lists every message it caused', () => {
  it('hook delivery, notification, confirmation and integration message, with state, attempts and answer; "Send again" sends one more', async () => {
    receiver.respond((req, res) => res.writeHead(req.url === '/in' ? 502 : 200).end('ok'));
    const res = await submit(t, formId, { json: { email: visitor, message: 'Hello <b>there</b>' } }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    await waitFor(async () => {
      const list = [
        ...(await t.services.hooks.listDeliveriesOfSubmission(accountId, submissionId)),
        ...(await t.services.notifications.listMessagesOfSubmission(accountId, submissionId)),
        ...(await t.services.integrations.listMessagesOfSubmission(accountId, submissionId)),
      ];
      return list.length === 4 && list.every((m) => m.state === 'sent' || m.state === 'failed');
    }, 20_000, 'four messages settled');

    const page = await client.get(`/dashboard/submissions/${submissionId}`);
    expect(page.res.status).toBe(200);
    const rows = page.html.split('<tr data-message=').slice(1);
    expect(rows).toHaveLength(4);
    const row = (kind: string) => rows.find((r) => r.includes(`>${kind}<`))!;
    expect(row('Hook delivery')).toContain('failed');
    expect(row('Hook delivery')).toContain('HTTP 502');
    expect(row('Hook delivery')).toContain('Send again');
    expect(row('Notification email')).toContain(owner);
    expect(row('Notification email')).toContain('Send again');
    // The visitor's confirmation is listed, never offered again.
    expect(row('Confirmation email')).toContain(visitor);
    expect(row('Confirmation email')).not.toContain('Send again');
    expect(row('Slack message')).toContain('Team chat');
    expect(row('Slack message')).toContain('HTTP 200');

    const fields = { channel: 'hook', messageId: `${submissionId}.${hookId}` };
    await expectCsrfRefused(client, `/dashboard/submissions/${submissionId}/send-again`, fields);
    receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    await client.get(`/dashboard/submissions/${submissionId}`);
    const again = await client.post(`/dashboard/submissions/${submissionId}/send-again`, fields);
    expect(again.res.status).toBe(303);
    expect(again.res.headers.get('location')).toBe(`/dashboard/submissions/${submissionId}#deliveries`);
    await waitFor(async () => (await t.services.hooks.listDeliveriesOfSubmission(accountId, submissionId))[0]?.state === 'sent', 20_000, 'the hook delivery sent again');
    expect(hookCalls().map((r) => r.headers['webhook-id'])).toEqual([fields.messageId, fields.messageId]);
    const after = await client.get(`/dashboard/submissions/${submissionId}`);
    expect(after.html).toContain('Queued to be sent again');
    // The row shows the last answer and keeps the one before it.
    const hookRow = after.html.split('<tr data-message=').slice(1).find((r) => r.includes('>Hook delivery<'))!;
    expect(hookRow).toMatch(/HTTP 200<details class="earlier"><summary>Earlier attempts \(1\)<\/summary><ol><li><time[^>]*>[^<]+<\/time>: HTTP 502<\/li><\/ol>/);

    // An owner notification, sent again: a second email to the owner.
    const notification = (await t.services.notifications.listMessagesOfSubmission(accountId, submissionId)).find((m) => m.kind === 'Notification email')!;
    await client.post(`/dashboard/submissions/${submissionId}/send-again`, { channel: 'email', messageId: notification.id });
    await waitFor(() => sink.to(owner).length === 2, 20_000, 'the notification sent again');
    // The confirmation cannot be sent again, even by a crafted request.
    const confirmation = (await t.services.notifications.listMessagesOfSubmission(accountId, submissionId)).find((m) => m.kind === 'Confirmation email')!;
    await client.get(`/dashboard/submissions/${submissionId}`);
    expect((await client.post(`/dashboard/submissions/${submissionId}/send-again`, { channel: 'email', messageId: confirmation.id })).res.status).toBe(404);
    expect(sink.to(visitor)).toHaveLength(1);
  });

  it('the hooks page logs "Send test" and sends a span of failed deliveries again', async () => {
    receiver.respond((_req, res) => res.writeHead(500).end());
    await client.get('/dashboard/hooks');
    const test = await client.post(`/dashboard/hooks/${hookId}/test`, {});
    expect(test.res.status).toBe(303);
    const log = await client.get('/dashboard/hooks');
    expect(log.html).toContain('Send test');
    expect((await t.services.hooks.listRecentDeliveries(accountId, hookId, 10))[0]).toMatchObject({ submissionId: null, state: 'failed', responseStatus: 500 });

    const { submissionId } = (await (await submit(t, formId, { json: { n: 2 } }, JSON_ACCEPT)).json()) as { submissionId: string };
    await waitFor(async () => (await t.services.hooks.listDeliveriesOfSubmission(accountId, submissionId))[0]?.state === 'failed', 20_000, 'a failed delivery');
    receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    await expectCsrfRefused(client, `/dashboard/hooks/${hookId}/redeliver`, { hours: '24' });
    await client.get('/dashboard/hooks');
    const bulk = await client.post(`/dashboard/hooks/${hookId}/redeliver`, { hours: '24' });
    expect(bulk.res.status).toBe(303);
    expect((await client.get('/dashboard/hooks')).html).toContain('Sending 1 failed delivery again');
    await waitFor(async () => (await t.services.hooks.listDeliveriesOfSubmission(accountId, submissionId))[0]?.state === 'sent', 20_000, 'sent again');
  });
});
