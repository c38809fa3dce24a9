import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

// "Send test" of a hook, an integration and an email recipient: one mechanism of the outbox, each
// test logged in the one attempt log under what it tests, shown by each channel's log, gone with it.
let receiver: HttpsReceiver;
let sink: SmtpSink;
let t: TestApp;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  sink = await startSmtpSink();
  t = await startTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: sink.url }, hookTransport: { ca: receiver.ca } });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await sink?.close();
});

const logOf = async (itemId: string) =>
  (await t.handle.db.selectFrom('outbox_attempts').select(['channel', 'attempt', 'outcome', 'status']).where('item_id', '=', itemId).orderBy('attempt').execute()).map((a) => [
    a.channel,
    Number(a.attempt),
    a.outcome,
    a.status === null ? null : Number(a.status),
  ]);

describe('test sends', () => {
  it('of every channel go through the outbox into the one log, under what they test, and leave with it', async () => {
    const owner = await createOwner(t.services);
    const accountId = owner.account.id;
    const formId = owner.form.id;
    const { hook } = await t.services.hooks.createHook(accountId, { formId, targetUrl: `${receiver.url}/hook` });
    const integration = await t.services.integrations.addIntegration(formId, { kind: 'slack', url: `${receiver.url}/slack` }, accountId);
    const address = `r-${randomBase62(6).toLowerCase()}@example.net`;
    const [recipient] = await t.services.notifications.setRecipients(formId, [address], { verified: true });

    receiver.respond((req, res) => res.writeHead(req.url === '/hook' ? 500 : 200).end('ok'));
    expect(await t.services.hooks.sendTestDelivery(accountId, hook.id)).toMatchObject({ status: 500 });
    receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    expect(await t.services.hooks.sendTestDelivery(accountId, hook.id)).toMatchObject({ status: 200 });
    expect(await t.services.integrations.sendTest(integration.id, accountId)).toMatchObject({ sent: true, status: 200 });
    expect(await t.services.notifications.sendTestEmails(accountId, formId)).toEqual([{ address, sent: true, reply: expect.stringMatching(/^250/) }]);
    expect(receiver.received.map((r) => r.url).sort()).toEqual(['/hook', '/hook', '/slack']);
    expect(sink.to(address)).toHaveLength(1);

    // One log: each test is the next attempt of what it tests; nothing was queued for them.
    expect(await logOf(hook.id)).toEqual([['hooks', 1, 'failed', 500], ['hooks', 2, 'sent', 200]]);
    expect(await logOf(integration.id)).toEqual([['integrations', 1, 'sent', 200]]);
    expect(await logOf(recipient!.id)).toEqual([['email', 1, 'sent', null]]);
    expect(await t.services.outbox.countPending()).toBe(0);

    // Each channel's log shows its tests.
    expect((await t.services.hooks.listRecentDeliveries(accountId, hook.id, 10)).map((d) => [d.submissionId, d.state, d.responseStatus])).toEqual([
      [null, 'sent', 200],
      [null, 'failed', 500],
    ]);
    expect((await t.services.integrations.listAttempts(integration.id, 10, accountId)).map((a) => [a.outcome, a.test])).toEqual([['sent', true]]);
    expect((await t.services.notifications.emailLog(accountId, formId)).map((e) => [e.kind, e.to, e.state])).toEqual([['test', address, 'sent']]);

    // Gone with what they test.
    await t.services.hooks.deleteHook(accountId, hook.id);
    await t.services.integrations.removeIntegration(integration.id, accountId);
    await t.services.notifications.setRecipients(formId, [], { verified: true });
    for (const id of [hook.id, integration.id, recipient!.id]) expect(await logOf(id)).toEqual([]);
  });
});
