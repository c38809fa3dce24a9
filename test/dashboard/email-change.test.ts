import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
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
const PASSWORD = 'correct horse battery';

async function signedIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.signUp(email, PASSWORD);
  return client;
}

async function requestChange(client: DashboardClient, to: string) {
  await client.get('/dashboard/account');
  return client.post('/dashboard/account/email', { email: to, currentPassword: PASSWORD });
}

const linkOf = (text: string) => /https:\/\/forms\.example\.com(\/dashboard\/confirm-email\/[A-Za-z0-9_-]+)/.exec(text)![1]!;

describe(`changing the account email on ${testDialect}`, () => {
  it('changes nothing until the new address confirms its link by a POST, and tells the old address', async () => {
    const [old, next] = [address('old'), address('new')];
    const client = await signedIn(old);
    const asked = await requestChange(client, next);
    expect(asked.res.status).toBe(303);
    const account = await client.get('/dashboard/account');
    expect(account.html).toContain(`Waiting for <strong>${next}</strong>`);
    expect(account.html).toContain(`<td id="account-email">${old}</td>`);
    expect((await t.services.accounts.findAccountByEmail(old))).toBeDefined();

    await waitFor(() => sink.to(next).length === 1 && sink.to(old).length === 1, 15_000, 'the link and the notice');
    expect(sink.to(old)[0]!.parsed.subject).toBe('Your Formgate email is about to change');
    expect(sink.to(old)[0]!.parsed.text).toContain(next);
    expect(sink.to(old)[0]!.parsed.text).not.toContain('/dashboard/confirm-email/');
    const link = linkOf(sink.to(next)[0]!.parsed.text!);

    // Opening the link (a mail scanner) changes nothing; someone with no session sees no dashboard link.
    const visitor = new DashboardClient(t);
    const opened = await visitor.get(link);
    expect(opened.res.status).toBe(200);
    expect(opened.html).toContain(`Use ${next}`);
    expect(opened.html).not.toContain('Back to the dashboard');
    expect(await t.services.accounts.findAccountByEmail(next)).toBeUndefined();

    const confirmed = await visitor.post(link, {});
    expect(confirmed.res.status).toBe(200);
    expect(confirmed.html).toContain(`Your account&#39;s email is now ${next}`);
    expect(confirmed.html).toContain('href="/dashboard/login"');
    expect(await t.services.accounts.findAccountByEmail(old)).toBeUndefined();
    expect((await t.services.accounts.verifyCredentials(next, PASSWORD))?.email).toBe(next);
    expect((await visitor.post(link, {})).res.status).toBe(404);
    expect((await client.get('/dashboard/account')).html).not.toContain('Waiting for');
  });

  it('replaces a pending change with a newer one, cancels one, and refuses an address another account took meanwhile', async () => {
    const [mine, first, second, taken] = [address('mine'), address('first'), address('second'), address('taken')];
    const client = await signedIn(mine);
    await requestChange(client, first);
    await requestChange(client, second);
    await waitFor(() => sink.to(first).length === 1 && sink.to(second).length === 1, 15_000, 'two links');
    const visitor = new DashboardClient(t);
    expect((await visitor.get(linkOf(sink.to(first)[0]!.parsed.text!))).res.status).toBe(404);

    await client.get('/dashboard/account');
    expect((await client.post('/dashboard/account/email/cancel', {})).res.status).toBe(303);
    expect((await visitor.get(linkOf(sink.to(second)[0]!.parsed.text!))).res.status).toBe(404);

    await requestChange(client, taken);
    await waitFor(() => sink.to(taken).length === 1, 15_000, 'the link');
    await t.services.accounts.createAccount({ email: taken, password: 'someone else entirely' });
    const link = linkOf(sink.to(taken)[0]!.parsed.text!);
    await visitor.get(link);
    const refused = await visitor.post(link, {});
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('Another account uses this email.');
    expect((await t.services.accounts.verifyCredentials(mine, PASSWORD))?.email).toBe(mine);
  });

  it('refuses the current email and a wrong password with messages by the fields', async () => {
    const mine = address('same');
    const client = await signedIn(mine);
    const same = await requestChange(client, mine.toUpperCase());
    expect(same.res.status).toBe(400);
    expect(same.html).toContain('This is already the account&#39;s email');
    await client.get('/dashboard/account');
    const wrong = await client.post('/dashboard/account/email', { email: address('x'), currentPassword: 'not it at all' });
    expect(wrong.html).toContain('That is not your current password');
  });
});

describe(`changing the account email without SMTP_URL on ${testDialect}`, () => {
  it('changes at once: nothing could confirm it', async () => {
    const plain = await buildTestApp();
    try {
      const client = new DashboardClient(plain);
      await client.signUp('before@example.com', PASSWORD);
      await client.get('/dashboard/account');
      await client.post('/dashboard/account/email', { email: 'after@example.com', currentPassword: PASSWORD });
      expect((await plain.services.accounts.verifyCredentials('after@example.com', PASSWORD))?.email).toBe('after@example.com');
    } finally {
      await plain.close();
    }
  });
});
