import type { Browser, Cookie } from 'playwright-core';
import { unsubscribeToken } from '../../src/features/notifications/confirmation.js';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';
import { launchChromium } from './browser.js';
import { createAccount } from './factories.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';
import { JSON_ACCEPT, submit } from './submit.js';
import { waitFor } from './wait.js';

const PASSWORD = 'long enough password';
const OWNER = 'owner@example.com';
const OTHER = 'other@example.com';
const INVITEE = 'invitee@example.com';

/** The addresses that show one page route: opened signed out, or signed in as the owner. */
export interface PageAddresses {
  signedOut?: string[];
  signedIn?: string[];
}

/** The app, Chromium and an instance whose every page has something to show. */
export interface SeededPages {
  t: TestApp;
  smtp: SmtpSink;
  browser: Browser;
  /** Each page route (as registered) with the addresses that show it. */
  pages: Record<string, PageAddresses>;
  /** The owner's session (the instance admin), for `context.addCookies`. */
  ownerCookies: Cookie[];
  close(): Promise<void>;
}

/**
 * Starts the app with one owner (the instance admin) whose pages are full: a form with a long
 * name, inbox and spam submissions with tags, notes and a failed hook delivery, a disabled
 * integration, a pending recipient, an email change and a password reset waiting, invitations
 * both ways, a key, a hook and a second account; every emailed link is read from the SMTP sink.
 */
export async function startSeededPages(options: Pick<TestAppOptions, 'onRoute'> = {}): Promise<SeededPages> {
  const smtp = await startSmtpSink();
  const t = await startTestApp({
    baseUrlIsOwnAddress: true,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'formgate@example.com', HOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    ...options,
  });
  const browser = await launchChromium();
  const linkIn = (to: string, pattern: RegExp) => pattern.exec(smtp.to(to).map((m) => m.parsed.text ?? '').join('\n'))![1]!;
  const s = t.services;
  // The first user is the instance admin: the Admin page and its confirmation open for the owner.
  const owner = await createAccount(s, { email: OWNER, password: PASSWORD, planId: 'pro', displayName: 'Owner' });
  const other = await createAccount(s, { email: OTHER, password: PASSWORD, planId: 'free', displayName: 'Other' });
  const form = await s.forms.createForm(owner.id, { name: 'Contact with a rather long name that has to wrap somewhere on a phone' });
  const long = 'I would like a quote for a website with a contact form, a newsletter sign-up and a shop; please call me back next week';
  // The hook before the submissions: the submission page and the Hooks page show failed deliveries.
  const { hook } = await s.hooks.createHook(owner.id, { formId: form.id, targetUrl: 'https://127.0.0.1:9/in' });
  const sent = async (fields: Record<string, string>) => ((await (await submit(t, form.id, { json: fields }, JSON_ACCEPT)).json()) as { submissionId: string }).submissionId;
  const submissionId = await sent({ email: 'ada@example.org', message: `${long} https://example.org/a/long/path/that/has/no/space/at/all/0123456789` });
  const second = await sent({ email: 'grace@example.org', message: 'A second one, so the list has rows to tick' });
  for (const tag of ['urgent', 'follow-up']) await s.inbox.apply(owner.id, [second], { kind: 'tag', tag });
  await s.inbox.apply(owner.id, [second], { kind: 'done' });
  await s.inbox.setNotes(owner.id, submissionId, 'Called back on Monday.');
  const spamId = await sent({ message: 'casino', _honey: 'bot' });
  const integration = await s.integrations.addIntegration(form.id, { kind: 'slack', url: 'https://hooks.slack.com/services/T0/B0/x' });
  await t.handle.db.updateTable('integrations').set({ enabled: 0, disabled_reason: 'Slack answered 404: the webhook was deleted' }).where('id', '=', integration.id).execute();
  const { key } = await s.apiKeys.createApiKey(owner.id, 'Zapier');
  await s.notifications.setRecipients(form.id, ['team@example.net'], { verified: false, accountId: owner.id });
  await s.emailChanges.requestChange(owner.id, 'new.owner@example.net', { password: PASSWORD, signedOnAt: null });
  await s.passwordResets.requestReset(OTHER);
  const invitation = await s.members.invite(owner.id, { email: INVITEE, role: 'member' });
  // A waiting invitation for the owner, from the other account: the Invitations page lists it.
  await s.members.invite(other.id, { email: OWNER, role: 'viewer' });
  await waitFor(() => ['team@example.net', 'new.owner@example.net', OTHER].every((to) => smtp.to(to).length > 0), 15_000, 'the emailed links');
  const token = (path: string, to: string) => `/dashboard/${path}/${linkIn(to, new RegExp(`/dashboard/${path}/([A-Za-z0-9_-]+)`))}`;
  const unsubscribe = unsubscribeToken(await s.instanceSecrets.getSecret('unsubscribe'), 'reader@example.com');

  const f = `/dashboard/forms/${form.id}`;
  const pages: Record<string, PageAddresses> = {
    '/dashboard': { signedOut: ['/dashboard'], signedIn: ['/dashboard'] },
    '/dashboard/login': { signedOut: ['/dashboard/login'] },
    '/dashboard/signup': { signedOut: ['/dashboard/signup'] },
    '/dashboard/forgot-password': { signedOut: ['/dashboard/forgot-password'] },
    '/dashboard/reset-password/:token': { signedOut: [token('reset-password', OTHER), '/dashboard/reset-password/used-or-expired-link-token'] },
    '/dashboard/verify-email/:token': { signedOut: [token('verify-email', 'team@example.net'), '/dashboard/verify-email/used-or-expired-link-token'] },
    '/dashboard/confirm-email/:token': { signedOut: [token('confirm-email', 'new.owner@example.net')] },
    '/dashboard/invite/:token': { signedOut: [new URL(invitation.url).pathname] },
    '/dashboard/auth/oidc': { signedOut: ['/dashboard/auth/oidc'] },
    '/dashboard/auth/oidc/callback': { signedOut: ['/dashboard/auth/oidc/callback?state=stale&code=nothing'] },
    '/thanks': { signedOut: [`/thanks?form=${form.id}&submission=${submissionId}`, '/thanks?error=validation_failed'] },
    '/v1/unsubscribe/:token': { signedOut: [`/v1/unsubscribe/${unsubscribe}`, '/v1/unsubscribe/not-a-token'] },
    '/dashboard/forms': { signedIn: ['/dashboard/forms'] },
    '/dashboard/forms/:id/submissions': { signedIn: [`${f}/submissions`, `${f}/submissions?spam=1`, `${f}/submissions?q=zzz`] },
    '/dashboard/forms/:id/settings': { signedIn: [`${f}/settings`] },
    '/dashboard/forms/:id/snippet': { signedIn: [`${f}/snippet`] },
    '/dashboard/forms/:id/delete': { signedIn: [`${f}/delete`] },
    '/dashboard/forms/:id/email-log': { signedIn: [`${f}/email-log`] },
    '/dashboard/forms/:id/integrations': { signedIn: [`${f}/integrations`] },
    '/dashboard/forms/:id/notifications': { signedIn: [`${f}/notifications`] },
    '/dashboard/forms/:id/submitter': { signedIn: [`${f}/submitter`] },
    '/dashboard/forms/:id/submissions/bulk': { signedIn: [`${f}/submissions/bulk`] },
    '/dashboard/submissions/:id': { signedIn: [`/dashboard/submissions/${submissionId}`, `/dashboard/submissions/${second}`, `/dashboard/submissions/${spamId}`] },
    '/dashboard/keys': { signedIn: ['/dashboard/keys'] },
    '/dashboard/keys/:id/revoke': { signedIn: [`/dashboard/keys/${key.id}/revoke`] },
    '/dashboard/hooks': { signedIn: ['/dashboard/hooks'] },
    '/dashboard/hooks/:id/delete': { signedIn: [`/dashboard/hooks/${hook.id}/delete`] },
    '/dashboard/account': { signedIn: ['/dashboard/account'] },
    '/dashboard/audit': { signedIn: ['/dashboard/audit'] },
    '/dashboard/members': { signedIn: ['/dashboard/members'] },
    '/dashboard/invitations': { signedIn: ['/dashboard/invitations'] },
    '/dashboard/admin': { signedIn: ['/dashboard/admin'] },
    '/dashboard/admin/accounts/:id/delete': { signedIn: [`/dashboard/admin/accounts/${other.id}/delete`] },
    '/dashboard/*': { signedIn: ['/dashboard/no-such-page'] },
  };


  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name=email]', OWNER);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/(forms|invitations)$/), page.click('button.primary')]);
  const ownerCookies = await context.cookies();
  await context.close();
  return {
    t,
    smtp,
    browser,
    pages,
    ownerCookies,
    close: async () => {
      await browser.close();
      await t.close();
      await smtp.close();
    },
  };
}
