import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

const sinks: SmtpSink[] = [];
const apps: AppUnderTest[] = [];

afterAll(async () => {
  for (const app of apps) await app.close();
  for (const sink of sinks) await sink.close();
});

async function notifiedForm(app: AppUnderTest, to: string) {
  const owner = await createOwner(app.services);
  await app.services.notifications.setRecipients(owner.form.id, [to], { verified: true });
  expect((await submit(app, owner.form.id, { json: { message: 'hello' } }, JSON_ACCEPT)).status).toBe(200);
  return owner;
}

describe(`email retries on ${testDialect}`, () => {
  let port: number;
  let app: AppUnderTest;
  beforeAll(async () => {
    port = await freePort();
    // Nothing listens on the port yet: every attempt is a connection error.
    app = await buildTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_RETRY_BASE_MS: '20' } });
    apps.push(app);
  });

  it('gives up after 5 attempts in all, spaced by the base delay ×4 each time', async () => {
    const owner = await notifiedForm(app, 'down@example.net');
    const log = () => app.services.notifications.emailLog(owner.account.id, owner.form.id);
    await waitFor(async () => (await log())[0]?.state === 'failed', 20_000, 'the message to fail');
    const [entry] = await log();
    expect(entry!.attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'retry', 'failed']);
    expect(entry!.attempts[0]!.reply).toMatch(/ECONNREFUSED|ECONNECTION/);
    const times = entry!.attempts.map((a) => Date.parse(a.attemptedAt));
    [20, 80, 320, 1280].forEach((delay, i) => expect(times[i + 1]! - times[i]!).toBeGreaterThanOrEqual(delay));
  });

  it('retries a connection error and delivers once the server is back', async () => {
    const owner = await notifiedForm(app, 'later@example.net');
    const log = () => app.services.notifications.emailLog(owner.account.id, owner.form.id);
    await waitFor(async () => ((await log())[0]?.attempts.length ?? 0) >= 1, 10_000, 'a first failed attempt');
    const sink = await startSmtpSink({ port });
    sinks.push(sink);
    await waitFor(() => sink.to('later@example.net').length === 1, 15_000, 'the email once the server is up');
    await waitFor(async () => (await log())[0]?.state === 'sent', 5_000, 'the success recorded');
    const attempts = (await log())[0]!.attempts;
    expect(attempts.at(-1)!.outcome).toBe('sent');
    expect(attempts.slice(0, -1).every((a) => a.outcome === 'retry')).toBe(true);
    expect(sink.to('later@example.net')).toHaveLength(1);
  });

  it('sends over implicit TLS with smtps://', async () => {
    const sink = await startSmtpSink({ implicitTls: true });
    sinks.push(sink);
    const tlsApp = await buildTestApp({ env: { SMTP_URL: sink.url }, mailTransport: { ca: sink.ca! } });
    apps.push(tlsApp);
    await notifiedForm(tlsApp, 'tls@example.net');
    await waitFor(() => sink.to('tls@example.net').length === 1, 15_000, 'the email over smtps');
    expect(sink.to('tls@example.net')[0]!.secure).toBe(true);
  });
});

describe(`several instances on one ${testDialect} database`, () => {
  it('two servers sending email side by side send each message exactly once', async () => {
    const sink = await startSmtpSink();
    sinks.push(sink);
    // A slow server keeps messages claimed (in flight) while the other instance looks for dead claims.
    sink.delayData(30);
    const a = await buildTestApp({ env: { SMTP_URL: sink.url } });
    apps.push(a);
    const b = await buildTestApp({ database: a.database, env: { SMTP_URL: sink.url } });
    apps.push(b);
    const owner = await createOwner(a.services);
    await a.services.notifications.setRecipients(owner.form.id, ['both@example.net'], { verified: true });
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => submit(i % 2 ? b : a, owner.form.id, { json: { i } }, JSON_ACCEPT)));
    const ids = await Promise.all(answers.map(async (r) => ((await r.json()) as { submissionId: string }).submissionId));
    await waitFor(() => sink.to('both@example.net').length >= 60, 60_000, '60 emails');
    await waitFor(async () => {
      const rows = await a.handle.db.selectFrom('email_messages').select('state').where('form_id', '=', owner.form.id).execute();
      return rows.length === 60 && rows.every((r) => r.state === 'sent');
    }, 15_000, 'every message recorded as sent');
    // Both dispatchers run once more; nothing comes twice.
    a.services.outbox.wake();
    b.services.outbox.wake();
    await a.services.outbox.settle();
    await b.services.outbox.settle();
    const received = sink.to('both@example.net').map((m) => String(m.parsed.headers.get('x-formgate-submission-id')));
    expect(received.sort()).toEqual([...ids].sort());
  });
});
