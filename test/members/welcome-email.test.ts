import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';

// Someone the instance's admin made an account for is welcomed, not told to reset a password
// they never had: with a link to choose one, or with single sign-on only, where to sign in.
const PASSWORD = 'correct horse battery';
const unique = (name: string) => `${name}-${randomBase62(6).toLowerCase()}@example.com`;

let sink: SmtpSink;
let t: AppUnderTest;
let ssoOnly: AppUnderTest;

beforeAll(async () => {
  sink = await startSmtpSink();
  const mail = { SMTP_URL: sink.url, MAIL_FROM: 'formgate@example.com' };
  t = await buildTestApp({ env: mail });
  ssoOnly = await buildTestApp({
    database: t.database,
    env: { ...mail, PASSWORD_LOGIN: 'false', OIDC_ISSUER: 'http://127.0.0.1:9/issuer', OIDC_CLIENT_ID: 'formgate', OIDC_CLIENT_SECRET: 'secret', OIDC_DISPLAY_NAME: 'Staff login' },
  });
});
afterAll(async () => {
  await ssoOnly?.close();
  await t?.close();
  await sink?.close();
});

/** The instance admin, signed in on `app` (a session for a server without passwords). */
async function adminClient(app: AppUnderTest): Promise<DashboardClient> {
  const admin = (await app.services.admin.listAccounts()).find((a) => a.ownerIsAdmin);
  const email = admin ? admin.email : (await createAccount(app.services, { email: unique('admin'), password: PASSWORD })).email;
  const user = (await app.services.accounts.findUserByEmail(email))!;
  const account = (await app.services.accounts.findAccountByEmail(email))!;
  const client = new DashboardClient(app);
  const method = app.config.passwordLogin ? 'password' : 'sso';
  client.cookies.set('fg_session', await app.services.sessions.startSession(user.id, account.id, { method }));
  await client.get('/dashboard/admin');
  return client;
}

const mailTo = async (email: string) => {
  await waitFor(() => sink.to(email).length === 1, 15_000, `the email to ${email}`);
  return sink.to(email)[0]!.parsed;
};

describe('the welcome of an account the admin made', () => {
  it('with passwords: a welcome of its own whose link sets the password, which then signs in', async () => {
    const client = await adminClient(t);
    const email = unique('welcomed');
    const made = await client.post('/dashboard/admin/accounts', { email });
    expect(made.res.status).toBe(303);
    expect((await client.get('/dashboard/admin')).html).toContain(`${email} has an account now; a welcome with a link to choose a password is on its way to them.`);

    const mail = await mailTo(email);
    expect(mail.subject).toBe('Welcome to Formgate: your account is ready');
    expect(mail.text).not.toMatch(/reset (your|the) password|asked to reset/i);
    expect(mail.text).toContain('Choose your password with this link (it works once, for 7 days)');
    expect(mail.text).toContain(`Then sign in at ${t.config.baseUrl}/dashboard/login`);
    const link = /(\/dashboard\/reset-password\/[A-Za-z0-9_-]+)/.exec(mail.text!)![1]!;
    expect(mail.html).toContain(`<a href="${t.config.baseUrl}${link}">Choose your password</a>`);

    const person = new DashboardClient(t);
    expect((await person.get(link)).res.status).toBe(200);
    expect((await person.post(link, { password: 'my own chosen password' })).res.status).toBe(200);
    // Once: the link is spent.
    expect((await new DashboardClient(t).get(link)).res.status).toBe(404);
    const signIn = new DashboardClient(t);
    await signIn.get('/dashboard/login');
    expect((await signIn.post('/dashboard/login', { email, password: 'my own chosen password' })).res.status).toBe(303);
  });

  it('with single sign-on only: a welcome that says to sign in with it, and no password link', async () => {
    const client = await adminClient(ssoOnly);
    const email = unique('sso-welcomed');
    expect((await client.post('/dashboard/admin/accounts', { email })).res.status).toBe(303);
    expect((await client.get('/dashboard/admin')).html).toContain(`${email} has an account now: they sign in by single sign-on; a welcome saying so is on its way to them.`);
    const mail = await mailTo(email);
    expect(mail.subject).toBe('Welcome to Formgate: your account is ready');
    expect(mail.text).toContain(`Sign in with single sign-on: open ${ssoOnly.config.baseUrl}/dashboard/login and choose “Staff login”. No password is needed`);
    expect(mail.text).not.toContain('reset-password');
    expect(mail.html).not.toContain('reset-password');
  });
});
