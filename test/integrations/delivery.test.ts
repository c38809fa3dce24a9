import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRequest } from '../../src/features/integrations/formats/index.js';
import { buildSubmissionMessage } from '../../src/features/integrations/message.js';
import type { ChatKind, IntegrationKind } from '../../src/features/integrations/integration.types.js';
import { formatTimeInWords, UTC } from '../../src/platform/lib/time-zone.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let receiver: HttpsReceiver;
let t: AppUnderTest;
const TOKEN = '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await buildTestApp({
    env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: '25', TELEGRAM_API_URL: `${receiver.url}/tg` },
    hookTransport: { ca: receiver.ca },
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** A fresh form, so each test sees only its own requests (paths carry the form's ID). */
async function newForm() {
  const owner = await createOwner(t.services);
  return owner.form;
}

async function add(formId: string, kind: IntegrationKind, extra: { url?: string; token?: string; chatId?: string } = {}) {
  return t.services.integrations.addIntegration(formId, { kind, ...extra });
}

async function send(formId: string, fields: Record<string, unknown>): Promise<string> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

const to = (path: string) => receiver.received.filter((r) => r.url.startsWith(path));

async function attemptsOf(id: string) {
  return (await t.services.integrations.listAttempts(id, 50)).reverse();
}

describe(`integrations over HTTPS on ${testDialect}`, () => {
  it('each kind receives its exact payload, once, at its platform path', async () => {
    const form = await newForm();
    const path = `/${form.id}`;
    const made = {
      slack: await add(form.id, 'slack', { url: `${receiver.url}${path}/slack` }),
      discord: await add(form.id, 'discord', { url: `${receiver.url}${path}/discord` }),
      teams: await add(form.id, 'teams', { url: `${receiver.url}${path}/teams` }),
      ntfy: await add(form.id, 'ntfy', { url: `${receiver.url}${path}/ntfy/alerts`, token: 'tk_abc' }),
      telegram: await add(form.id, 'telegram', { token: TOKEN, chatId: '-100123' }),
    };
    const submissionId = await send(form.id, { email: 'ada@example.com', message: 'Hello <@123> @everyone **hi**' });
    await waitFor(() => to(path).length >= 4 && to(`/tg/bot${TOKEN}`).length >= 1, 15_000, 'five deliveries');
    await waitFor(async () => (await Promise.all(Object.values(made).map((i) => attemptsOf(i.id)))).every((a) => a.length === 1), 15_000, 'five attempts logged');

    const stored = await t.handle.db.selectFrom('submissions').selectAll().where('id', '=', submissionId).executeTakeFirstOrThrow();
    const message = buildSubmissionMessage(
      form.name,
      { id: submissionId, createdAt: stored.created_at, country: stored.country, payload: JSON.parse(stored.payload) },
      `${t.config.baseUrl}/dashboard/submissions/${submissionId}`,
    );
    const expected = (kind: ChatKind, url: string | null, token: string | null = null, chatId: string | null = null) =>
      formatRequest({ kind, url, token, chatId }, message, t.config.telegramApiUrl);

    for (const [kind, received] of [
      ['slack', to(`${path}/slack`)],
      ['discord', to(`${path}/discord`)],
      ['teams', to(`${path}/teams`)],
    ] as const) {
      expect(received).toHaveLength(1);
      expect(received[0]!.headers['content-type']).toBe('application/json');
      expect(JSON.parse(received[0]!.body)).toEqual(JSON.parse(expected(kind, `${receiver.url}${path}/${kind}`).body));
    }
    const slack = JSON.parse(to(`${path}/slack`)[0]!.body);
    expect(slack.text).toContain('Hello &lt;@\u200b123&gt; @\u200beveryone **hi**');
    const discord = JSON.parse(to(`${path}/discord`)[0]!.body);
    expect(discord.allowed_mentions).toEqual({ parse: [] });

    expect(stored.country).toBe('XX');
    const [ntfy] = to(`${path}/ntfy/`);
    expect(ntfy!.url).toBe(`${path}/ntfy/`);
    expect(ntfy!.headers.authorization).toBe('Bearer tk_abc');
    expect(JSON.parse(ntfy!.body)).toEqual({
      topic: 'alerts',
      title: 'New submission: Contact',
      message: `email: ada@example.com\nmessage: Hello <@123> @everyone **hi**\n${formatTimeInWords(UTC, stored.created_at)} · country: unknown`,
      click: `${t.config.baseUrl}/dashboard/submissions/${submissionId}`,
      markdown: false,
    });

    const telegram = to(`/tg/bot${TOKEN}`);
    expect(telegram).toHaveLength(1);
    expect(telegram[0]!.url).toBe(`/tg/bot${TOKEN}/sendMessage`);
    expect(JSON.parse(telegram[0]!.body)).toEqual(JSON.parse(expected('telegram', null, TOKEN, '-100123').body));
    expect(JSON.parse(telegram[0]!.body).text).toContain('Hello &lt;@\u200b123&gt;');

    for (const integration of Object.values(made)) {
      expect(await attemptsOf(integration.id)).toEqual([{ id: expect.any(String), attemptedAt: expect.any(String), outcome: 'sent', status: 200, error: null, test: false }]);
    }
  });

  it('429 with Retry-After is retried after the time it asked for, then sent', async () => {
    const form = await newForm();
    const path = `/${form.id}/slack`;
    const integration = await add(form.id, 'slack', { url: `${receiver.url}${path}` });
    let calls = 0;
    receiver.respond((req, res) => {
      if (req.url === path && calls++ === 0) res.writeHead(429, { 'retry-after': '1' }).end('slow down');
      else res.writeHead(200).end('ok');
    });
    try {
      await send(form.id, { message: 'hi' });
      await waitFor(async () => (await attemptsOf(integration.id)).length === 2, 15_000, 'two attempts');
    } finally {
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    }
    const [first, second] = await attemptsOf(integration.id);
    expect(first).toMatchObject({ outcome: 'retry', status: 429, error: 'HTTP 429 Too Many Requests' });
    expect(second).toMatchObject({ outcome: 'sent', status: 200, error: null });
    // MAIL_RETRY_BASE_MS is 25 ms here: the wait of about a second is Retry-After's.
    expect(Date.parse(second!.attemptedAt) - Date.parse(first!.attemptedAt)).toBeGreaterThanOrEqual(950);
    expect(to(path)).toHaveLength(2);
  });

  it('500 five times: five attempts with growing delays, then failed; the integration stays on', async () => {
    const form = await newForm();
    const path = `/${form.id}/discord`;
    const integration = await add(form.id, 'discord', { url: `${receiver.url}${path}` });
    receiver.respond((req, res) => res.writeHead(req.url === path ? 500 : 200).end('x'));
    try {
      await send(form.id, { message: 'hi' });
      await waitFor(async () => (await attemptsOf(integration.id)).length === 5, 20_000, 'five attempts');
      await waitFor(async () => {
        const row = await t.handle.db.selectFrom('integration_messages').select('state').where('integration_id', '=', integration.id).executeTakeFirst();
        return row?.state === 'failed';
      }, 5_000, 'the message given up');
    } finally {
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    }
    const attempts = await attemptsOf(integration.id);
    expect(attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['retry', 500],
      ['retry', 500],
      ['retry', 500],
      ['retry', 500],
      ['failed', 500],
    ]);
    expect(attempts[4]!.error).toBe('HTTP 500 (gave up after 5 attempts)');
    // 25, 100, 400 and 1600 ms: ×4 each time.
    const gaps = attempts.slice(1).map((a, i) => Date.parse(a.attemptedAt) - Date.parse(attempts[i]!.attemptedAt));
    expect(gaps[3]).toBeGreaterThanOrEqual(1550);
    expect(gaps[2]).toBeGreaterThanOrEqual(380);
    expect(to(path)).toHaveLength(5);
    expect((await t.services.integrations.getIntegration(integration.id)).enabled).toBe(true);
  });

  it('404 disables the integration with the reason; nothing more is sent to it', async () => {
    const form = await newForm();
    const path = `/${form.id}/teams`;
    const integration = await add(form.id, 'teams', { url: `${receiver.url}${path}` });
    receiver.respond((req, res) => res.writeHead(req.url === path ? 404 : 200).end('gone'));
    try {
      await send(form.id, { message: 'one' });
      await waitFor(async () => !(await t.services.integrations.getIntegration(integration.id)).enabled, 15_000, 'the integration disabled');
    } finally {
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    }
    const disabled = await t.services.integrations.getIntegration(integration.id);
    expect(disabled.disabledReason).toMatch(/404 Not Found/);
    expect(await attemptsOf(integration.id)).toEqual([expect.objectContaining({ outcome: 'disabled', status: 404 })]);
    await send(form.id, { message: 'two' });
    const outbox = await t.handle.db.selectFrom('outbox').innerJoin('submissions', 'submissions.id', 'outbox.submission_id').select('outbox.submission_id').where('submissions.form_id', '=', form.id).execute();
    expect(outbox).toEqual([]);
    expect(to(path)).toHaveLength(1);

    // The team's audit log says Formgate turned it off, and why.
    const account = (await t.services.forms.getForm(form.id)).accountId;
    expect((await t.services.audit.listEvents(account, { action: 'integration.disabled' })).map((e) => [e.actor.label, e.target, e.details])).toEqual([
      ['formgate', { type: 'integration', id: integration.id, label: integration.name }, { formId: form.id, form: form.name, kind: 'teams', reason: disabled.disabledReason }],
    ]);

    // Turned on again by the owner, it receives the next submission.
    await t.services.integrations.setEnabled(integration.id, true);
    expect((await t.services.integrations.getIntegration(integration.id)).disabledReason).toBeNull();
    await send(form.id, { message: 'three' });
    await waitFor(() => to(path).length === 2, 15_000, 'a delivery after re-enabling');
  });

  it('spam is never sent; "not spam" sends it once, however often it is marked', async () => {
    const form = await newForm();
    const path = `/${form.id}/ntfy/topic`;
    const integration = await add(form.id, 'ntfy', { url: `${receiver.url}${path}` });
    const spamId = await send(form.id, { message: 'buy now', _gotcha: 'bot' });
    const hamId = await send(form.id, { message: 'real' });
    await waitFor(() => to(`/${form.id}/ntfy/`).length >= 1, 15_000, 'the real one');
    t.services.outbox.wake();
    await t.services.outbox.settle();
    expect(to(`/${form.id}/ntfy/`).map((r) => JSON.parse(r.body).message)).toEqual([expect.stringContaining('message: real')]);

    await t.services.triage.markSubmission(spamId, false);
    await waitFor(() => to(`/${form.id}/ntfy/`).length >= 2, 15_000, 'the released one');
    await t.services.triage.markSubmission(spamId, true);
    await t.services.triage.markSubmission(spamId, false);
    await t.services.triage.markSubmission(hamId, false);
    t.services.outbox.wake();
    await waitFor(async () => (await t.services.outbox.countPending()) === 0, 15_000, 'nothing pending');
    await t.services.outbox.settle();
    const messages = to(`/${form.id}/ntfy/`).map((r) => JSON.parse(r.body).message as string);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toContain('message: buy now');
    expect((await attemptsOf(integration.id)).map((a) => a.outcome)).toEqual(['sent', 'sent']);
  });

  it('the test button sends a sample and logs it; a refused target is reported, not thrown', async () => {
    const form = await newForm();
    const path = `/${form.id}/test`;
    const integration = await add(form.id, 'slack', { url: `${receiver.url}${path}` });
    expect(await t.services.integrations.sendTest(integration.id)).toEqual({ sent: true, status: 200, error: null });
    expect(JSON.parse(to(path)[0]!.body).text).toContain('This is a test message from Formgate.');
    receiver.respond((_req, res) => res.writeHead(403).end('no'));
    try {
      const result = await t.services.integrations.sendTest(integration.id);
      expect(result).toMatchObject({ sent: false, status: 403, error: expect.stringMatching(/403 Forbidden/) });
    } finally {
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    }
    expect((await attemptsOf(integration.id)).map((a) => [a.outcome, a.status, a.test])).toEqual([
      ['sent', 200, true],
      ['failed', 403, true],
    ]);
  });

  it('validates targets, limits a form to 10, and deleting the form deletes its integrations and queued messages', async () => {
    const form = await newForm();
    await expect(add(form.id, 'slack', { url: 'http://hooks.example.com/x' })).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { url: 'must be an https: URL' } });
    await expect(add(form.id, 'telegram', { token: 'nope', chatId: 'x' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'irc', url: 'https://x.example' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'slack', name: 'a\u0000b', url: `${receiver.url}/x` })).rejects.toMatchObject({ fieldErrors: { name: 'must be text without NUL characters' } });
    await expect(t.services.integrations.sendTest('int_\u0000\ud800')).rejects.toMatchObject({ code: 'not_found' });
    const path = `/${form.id}/held`;
    for (let i = 0; i < 10; i++) await add(form.id, 'discord', { url: `${receiver.url}${path}/${i}` });
    await expect(add(form.id, 'discord', { url: `${receiver.url}${path}/10` })).rejects.toMatchObject({ code: 'validation_failed' });
    const listed = await t.services.integrations.listIntegrations(form.id);
    expect(listed).toHaveLength(10);
    expect(listed[0]).toMatchObject({ kind: 'discord', url: 'set', token: null, enabled: true });
    expect(JSON.stringify(listed)).not.toContain(receiver.url);

    // Queue messages that cannot be delivered yet (the receiver answers 503), then delete the form.
    let messageIds: string[] = [];
    receiver.respond((req, res) => res.writeHead(req.url!.startsWith(path) ? 503 : 200).end('x'));
    try {
      await send(form.id, { message: 'queued' });
      await waitFor(async () => {
        const n = await t.handle.db.selectFrom('integration_messages').innerJoin('integrations', 'integrations.id', 'integration_messages.integration_id').select('integration_messages.id').where('integrations.form_id', '=', form.id).execute();
        return n.length === 10;
      }, 15_000, 'ten queued messages');
      messageIds = (await t.handle.db.selectFrom('integration_messages').select('id').where('integration_id', 'in', listed.map((i) => i.id)).execute()).map((m) => m.id);
      // Their first attempts (503s) are logged before the form goes.
      await waitFor(async () => (await t.handle.db.selectFrom('outbox_attempts').select('id').where('item_id', 'in', messageIds).execute()).length >= 10, 15_000, 'ten attempts');
      await t.services.lifecycle.deleteForm(form.id);
    } finally {
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    }
    expect(await t.handle.db.selectFrom('integrations').select('id').where('form_id', '=', form.id).execute()).toEqual([]);
    const ids = listed.map((i) => i.id);
    expect(await t.handle.db.selectFrom('integration_messages').select('id').where('integration_id', 'in', ids).execute()).toEqual([]);
    expect(await t.handle.db.selectFrom('outbox_attempts').select('id').where('item_id', 'in', [...ids, ...messageIds]).execute()).toEqual([]);
  });

  it(`two instances on one ${testDialect} database deliver each message once`, async () => {
    const b = await buildTestApp({ database: t.database, env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', MAIL_RETRY_BASE_MS: '25' }, hookTransport: { ca: receiver.ca } });
    try {
      const form = await newForm();
      const path = `/${form.id}/pair`;
      await add(form.id, 'slack', { url: `${receiver.url}${path}` });
      const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => submit(i % 2 ? b : t, form.id, { json: { i } }, JSON_ACCEPT)));
      expect(responses.every((r) => r.status === 200)).toBe(true);
      const ids = await Promise.all(responses.map(async (r) => ((await r.json()) as { submissionId: string }).submissionId));
      await waitFor(() => to(path).length >= 100, 60_000, '100 deliveries');
      t.services.outbox.wake();
      b.services.outbox.wake();
      await waitFor(async () => {
        const rows = await t.handle.db.selectFrom('integration_messages').select('state').where('submission_id', 'in', ids).execute();
        return rows.length === 100 && rows.every((r) => r.state === 'sent');
      }, 15_000, 'all recorded as sent');
      await Promise.all([t.services.outbox.settle(), b.services.outbox.settle()]);
      const delivered = to(path).map((r) => /submissions\/(sub_\w+)/.exec(JSON.parse(r.body).text)![1]);
      expect(delivered).toHaveLength(100);
      expect(new Set(delivered)).toEqual(new Set(ids));
    } finally {
      await b.close();
    }
  });
});
