import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

describe(`what the dashboard answers where people land on ${testDialect}`, () => {
  it('opens a fresh instance on sign-up, and on log-in once an account exists', async () => {
    const visitor = new DashboardClient(t);
    const fresh = await visitor.get('/dashboard');
    expect(fresh.res.headers.get('location')).toBe('/dashboard/signup');
    const owner = new DashboardClient(t);
    await owner.signUp('first@example.com');
    expect((await visitor.get('/dashboard')).res.headers.get('location')).toBe('/dashboard/login');
    expect((await owner.get('/dashboard')).res.headers.get('location')).toBe('/dashboard/forms');
  });

  it('sends a GET of a POST-only form address to the page the form is on; another account\'s form is still not found', async () => {
    const owner = new DashboardClient(t);
    await owner.signUp('redirects@example.com');
    await owner.get('/dashboard/forms');
    const created = await owner.post('/dashboard/forms', { name: 'Contact' });
    const formId = /\/dashboard\/forms\/([^/]+)\/settings/.exec(created.res.headers.get('location')!)![1]!;
    for (const [path, target] of [
      [`/dashboard/forms/${formId}/submitter`, `/dashboard/forms/${formId}/settings#submitter`],
      [`/dashboard/forms/${formId}/notifications`, `/dashboard/forms/${formId}/settings#notifications`],
      [`/dashboard/forms/${formId}/submissions/bulk`, `/dashboard/forms/${formId}/submissions`],
    ]) {
      const { res } = await owner.get(path!);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location')).toBe(target);
    }
    const stranger = new DashboardClient(t);
    await stranger.signUp('stranger@example.com');
    expect((await stranger.get(`/dashboard/forms/${formId}/submitter`)).res.status).toBe(404);
  });

  it('tells a signed-in user whose account was disabled why, on the log-in page', async () => {
    const user = new DashboardClient(t);
    await user.signUp('disabled@example.com');
    const account = (await t.services.accounts.findAccountByEmail('disabled@example.com'))!;
    await t.services.accounts.setDisabled(account.id, true);
    const { res } = await user.get('/dashboard/forms');
    expect(res.headers.get('location')).toBe('/dashboard/login');
    const login = await user.get('/dashboard/login');
    expect(login.html).toContain('This account is disabled');
    expect((await user.get('/dashboard')).res.headers.get('location')).toBe('/dashboard/login');
    // Someone else's log-in page says nothing of it.
    expect((await new DashboardClient(t).get('/dashboard/login')).html).not.toContain('disabled');
  });

  it('shows no dashboard link to someone without a session on a message page', async () => {
    const visitor = new DashboardClient(t);
    const page = await visitor.get('/dashboard/verify-email/not-a-token-but-long-enough');
    expect(page.res.status).toBe(404);
    expect(page.html).toContain('Link not valid');
    expect(page.html).not.toContain('Back to the dashboard');
  });

  it('says the email log\'s skipped message once, in words', async () => {
    const owner = new DashboardClient(t);
    await owner.signUp('log@example.com');
    const account = (await t.services.accounts.findAccountByEmail('log@example.com'))!;
    const form = await t.services.forms.createForm(account.id, { name: 'Logged' });
    const now = new Date().toISOString();
    const row = { form_id: form.id, submission_id: null, recipient_id: null, attempts: 0, next_attempt_at: now, created_at: now };
    await t.handle.db.insertInto('email_messages').values([
      { ...row, id: 'eml_skipped', kind: 'confirmation', to_address: 'gone@example.org', state: 'skipped', attempts: 1 },
      { ...row, id: 'eml_pending', kind: 'test', to_address: 'soon@example.org', state: 'pending' },
    ]).execute();
    // Its reason as the outbox logs a skip.
    await t.handle.db
      .insertInto('outbox_attempts')
      .values({ id: 'att_skipped', channel: 'email', item_id: 'eml_skipped', attempt: 1, attempted_at: now, outcome: 'skipped', status: null, duration_ms: null, error: 'suppressed' })
      .execute();
    const { html } = await owner.get(`/dashboard/forms/${form.id}/email-log`);
    const rowOf = (to: string) => html.split('<tr>').find((r) => r.includes(to))!;
    expect(rowOf('gone@example.org')).toContain('the address unsubscribed');
    expect(rowOf('gone@example.org')).not.toContain('not tried yet');
    expect(rowOf('gone@example.org')).not.toContain('(suppressed)');
    expect(rowOf('soon@example.org')).toContain('not tried yet');
  });
});

describe(`closed sign-up on ${testDialect}`, () => {
  it('is titled as closed, not as a missing page, and opens a fresh instance on log-in', async () => {
    const closed = await buildTestApp({ env: { DASHBOARD_SIGNUP: 'closed' } });
    try {
      const visitor = new DashboardClient(closed);
      expect((await visitor.get('/dashboard')).res.headers.get('location')).toBe('/dashboard/login');
      const { res, html } = await visitor.get('/dashboard/signup');
      expect(res.status).toBe(404);
      expect(html).toContain('<title>Sign-up is closed · Formgate</title>');
      expect(html).not.toContain('Not found');
      expect(html).toContain('href="/dashboard/login"');
    } finally {
      await closed.close();
    }
  });
});
