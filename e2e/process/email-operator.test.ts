import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { DashboardClient } from '../../test/helpers/dashboard-client.js';
import { testDialect } from '../../test/helpers/database.js';
import { createOwner } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../../test/helpers/submit.js';
import { waitFor } from '../../test/helpers/wait.js';

let sink: SmtpSink;
let t: TestApp;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startTestApp({ env: { SMTP_URL: sink.url, MAIL_FROM: 'Forms <forms@example.com>' } });
});

afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const address = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;

/** The CLI on the test app's database, with its SMTP sink. */
const cliEnv = (env: Record<string, string> = {}) => ({ DATABASE_URL: t.database.url, SMTP_URL: sink.url, MAIL_FROM: 'Forms <forms@example.com>', ...env });
const formgate = (args: string[], env?: Record<string, string>) => runCli(args, cliEnv(env));
const ok = (args: string[], env?: Record<string, string>) => runCliJson(args, cliEnv(env));

describe(`email for operators and owners on ${testDialect}`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('forms create/update --notify sets verified recipients (replacing the list, "" clears it) and --notify-mode', async () => {
    const owner = await createOwner(t.services);
    const [a, b] = [address('cli-a'), address('cli-b')].sort() as [string, string];
    const { form } = await ok(['forms', 'create', owner.account.id, '--name', 'CLI form', '--notify', a, '--notify', b, '--notify-mode', 'daily']);
    expect(form.settings).toMatchObject({ notify: [a, b], notifyMode: 'daily' });
    expect((await t.services.notifications.listRecipients(form.id)).map((r) => [r.address, r.state])).toEqual([
      [a, 'verified'],
      [b, 'verified'],
    ]);
    // Operator-set addresses get no verification email.
    expect(sink.to(a)).toEqual([]);

    const replaced = (await ok(['forms', 'update', form.id, '--notify', b, '--notify-mode', 'each'])).form;
    expect(replaced.settings).toMatchObject({ notify: [b], notifyMode: 'each' });
    const cleared = (await ok(['forms', 'update', form.id, '--notify', ''])).form;
    expect(cleared.settings.notify).toEqual([]);

    const bad = await formgate(['forms', 'update', form.id, '--notify', 'not-an-address', '--json']);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/not-an-address/);
    const six = Array.from({ length: 6 }, (_, i) => ['--notify', address(`six${i}`)]).flat();
    const tooMany = await formgate(['forms', 'update', form.id, ...six, '--json']);
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.stderr).toMatch(/at most 5/);
    const badMode = await formgate(['forms', 'update', form.id, '--notify-mode', 'weekly', '--json']);
    expect(badMode.code).not.toBe(0);
  });

  it('mail test sends one message through SMTP_URL and prints {sent: true}; a refusal or no SMTP_URL is an error', async () => {
    const to = address('test');
    expect(await ok(['mail', 'test', to])).toEqual({ sent: true });
    expect(sink.to(to)).toHaveLength(1);
    expect(sink.to(to)[0]!.parsed.subject).toBe('Formgate test email');
    expect(sink.to(to)[0]!.envelope.from).toBe('forms@example.com');

    const refused = address('refused');
    sink.onRecipient((rcpt) => (rcpt === refused ? { code: 550, message: '5.1.1 No such user' } : undefined));
    const failed = await formgate(['mail', 'test', refused, '--json']);
    sink.onRecipient(() => undefined);
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/550/);

    const off = await formgate(['mail', 'test', to, '--json'], { SMTP_URL: '' });
    expect(off.code).not.toBe(0);
    expect(off.stderr).toMatch(/SMTP_URL/);
  });

  it('dashboard: notification settings send a verification email, the test button sends to confirmed addresses, and the email log shows every attempt', async () => {
    const client = new DashboardClient(t.url);
    const ownerEmail = address('owner');
    await client.signUp(ownerEmail);
    const created = await client.post('/dashboard/forms', { name: 'Shop' });
    const formPath = created.res.headers.get('location')!;
    const formId = formPath.split('/')[3]!;
    const settings = await client.get(formPath);
    expect(settings.html).toContain('Email notifications');
    expect(settings.html).toContain('name="recipients"');

    // The account's own address is verified the same way as any other.
    const saved = await client.post(`/dashboard/forms/${formId}/notifications`, { recipients: ownerEmail, notifyMode: 'each' });
    expect(saved.res.status).toBe(303);
    await waitFor(() => sink.to(ownerEmail).length === 1, 15_000, 'the verification email');
    const page = await client.get(formPath);
    expect(page.html).toContain('waiting for confirmation');

    const none = await client.post(`/dashboard/forms/${formId}/notifications/test`, {});
    expect(none.res.status).toBe(400);
    const link = /(\/dashboard\/verify-email\/[A-Za-z0-9_-]+)/.exec(sink.to(ownerEmail)[0]!.parsed.text!)![1]!;
    // Opening the link only shows the button; its POST confirms.
    const visitor = new DashboardClient(t.url);
    expect((await visitor.get(link)).res.status).toBe(200);
    expect((await visitor.post(link, {})).html).toContain('Address confirmed');

    await client.get(formPath);
    const test = await client.post(`/dashboard/forms/${formId}/notifications/test`, {});
    expect(test.res.status).toBe(200);
    expect(test.html).toContain(ownerEmail);
    await waitFor(() => sink.to(ownerEmail).some((m) => m.parsed.subject === 'Formgate test email'), 15_000, 'the test email');

    await submit(t, formId, { json: { message: 'hello <there>' } }, JSON_ACCEPT);
    await waitFor(() => sink.to(ownerEmail).length === 3, 15_000, 'the submission email');
    await waitFor(async () => (await t.services.notifications.emailLog((await t.services.accounts.findAccountByEmail(ownerEmail))!.id, formId)).every((e) => e.state === 'sent'), 5_000, 'attempts recorded');
    const log = await client.get(`/dashboard/forms/${formId}/email-log`);
    expect(log.res.status).toBe(200);
    for (const kind of ['verification', 'test', 'submission']) expect(log.html).toContain(`<td data-label="Kind">${kind}`);
    expect((log.html.match(/<strong>sent<\/strong> · <code>250 /g) ?? []).length).toBe(3);

    // A bounced address is flagged on the form's page.
    sink.onRecipient((rcpt) => (rcpt === ownerEmail ? { code: 550, message: '5.2.1 Mailbox disabled' } : undefined));
    await submit(t, formId, { json: { message: 'bounce' } }, JSON_ACCEPT);
    await waitFor(async () => (await t.services.notifications.listRecipients(formId))[0]?.state === 'bounced', 15_000, 'the bounce');
    sink.onRecipient(() => undefined);
    const warned = await client.get(formPath);
    expect(warned.html).toMatch(/Mail to <strong>[^<]+<\/strong> bounced/);
  });

  it('with SMTP_URL unset: no email settings on the dashboard, and nothing is queued', async () => {
    const off = await startTestApp({ database: t.database });
    try {
      const client = new DashboardClient(off.url);
      await client.signUp(address('off'));
      const created = await client.post('/dashboard/forms', { name: 'Quiet' });
      const page = await client.get(created.res.headers.get('location')!);
      expect(page.html).toContain('Email is off on this server');
      expect(page.html).not.toContain('name="recipients"');
      const formId = created.res.headers.get('location')!.split('/')[3]!;
      await off.services.notifications.setRecipients(formId, [address('quiet')], { verified: true });
      const res = await submit(off, formId, { json: { a: 1 } }, JSON_ACCEPT);
      expect(res.status).toBe(200);
      const { submissionId } = (await res.json()) as { submissionId: string };
      expect(await off.handle.db.selectFrom('outbox').select('submission_id').where('submission_id', '=', submissionId).execute()).toEqual([]);
      expect(await off.handle.db.selectFrom('email_messages').select('id').where('form_id', '=', formId).execute()).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
