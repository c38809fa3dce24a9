import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

describe('dashboard sign-up, log-in and sessions', () => {
  it('sends anonymous visitors to the log-in page', async () => {
    const client = new DashboardClient(t);
    // `/dashboard` itself opens a fresh instance on sign-up (page-answers.test.ts).
    for (const path of ['/dashboard/forms', '/dashboard/keys', '/dashboard/hooks', '/dashboard/account']) {
      const { res } = await client.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/dashboard/login');
    }
  });

  it('signs up, sets a HttpOnly SameSite session cookie, and logs out', async () => {
    const client = new DashboardClient(t);
    await client.get('/dashboard/signup');
    expect((await client.post('/dashboard/signup', { email: 'owner@example.com', displayName: 'Owner', password: 'correct horse battery' })).res.status).toBe(303);
    const cookie = client.lastSetCookies.find((c) => c.startsWith('fg_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/dashboard/);
    expect(cookie).not.toMatch(/Secure/); // BASE_URL is http here; see the https case below
    const forms = await client.get('/dashboard/forms');
    expect(forms.res.status).toBe(200);
    expect(forms.res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    await client.post('/dashboard/logout', {});
    expect((await client.get('/dashboard/forms')).res.status).toBe(303);
  });

  it('issues a new session ID at log-in (no session fixation) and refuses wrong passwords', async () => {
    const client = new DashboardClient(t);
    await client.signUp('fixation@example.com');
    const before = client.cookies.get('fg_session');
    await client.get('/dashboard/login');
    const wrong = await client.post('/dashboard/login', { email: 'fixation@example.com', password: 'not the password' });
    expect(wrong.res.status).toBe(401);
    expect(wrong.html).toContain('Wrong email or password');
    await client.get('/dashboard/login');
    const ok = await client.post('/dashboard/login', { email: 'fixation@example.com', password: 'correct horse battery' });
    expect(ok.res.status).toBe(303);
    const after = client.cookies.get('fg_session');
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // The old session is gone.
    const stale = new DashboardClient(t);
    stale.cookies.set('fg_session', before!);
    expect((await stale.get('/dashboard/forms')).res.status).toBe(303);
    // A planted cookie never becomes an authenticated one.
    const planted = new DashboardClient(t);
    planted.cookies.set('fg_session', 'attacker-chosen-value');
    expect((await planted.get('/dashboard/forms')).res.status).toBe(303);
  });

  it('refuses a state-changing POST without the CSRF token', async () => {
    const client = new DashboardClient(t);
    await client.signUp('csrf@example.com');
    await client.get('/dashboard/forms');
    const forged = await client.post('/dashboard/forms', { name: 'Forged' }, { csrf: false });
    expect(forged.res.status).toBe(403);
    const wrongToken = await client.post('/dashboard/forms', { name: 'Forged', _csrf: 'nope' }, { csrf: false });
    expect(wrongToken.res.status).toBe(403);
    expect((await client.get('/dashboard/forms')).html).not.toContain('Forged');
    const real = await client.post('/dashboard/forms', { name: 'Real form' });
    expect(real.res.status).toBe(303);
    expect((await client.get('/dashboard/forms')).html).toContain('Real form');
  });
});

describe('DASHBOARD_SIGNUP=closed and https cookies', () => {
  it('hides sign-up and marks cookies Secure behind https', async () => {
    const closed = await buildTestApp({ env: { DASHBOARD_SIGNUP: 'closed', BASE_URL: 'https://forms.example.com' } });
    try {
      const client = new DashboardClient(closed);
      expect((await client.get('/dashboard/signup')).res.status).toBe(404);
      const login = await client.get('/dashboard/login');
      expect(login.html).not.toContain('/dashboard/signup');
      expect((await client.post('/dashboard/signup', { email: 'a@example.com', password: 'long enough pw' })).res.status).toBe(404);
      await closed.services.accounts.createAccount({ email: 'cli@example.com', password: 'made by the operator' });
      await client.get('/dashboard/login');
      const { res } = await client.post('/dashboard/login', { email: 'cli@example.com', password: 'made by the operator' });
      expect(res.status).toBe(303);
      expect(client.lastSetCookies.find((c) => c.startsWith('fg_session='))).toMatch(/Secure/);
    } finally {
      await closed.close();
    }
  });
});

describe('log-in rate limit', () => {
  it('allows 10 attempts a minute per client, then 429', async () => {
    const fresh = await buildTestApp();
    try {
      const client = new DashboardClient(fresh);
      await client.get('/dashboard/login');
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await client.post('/dashboard/login', { email: 'x@example.com', password: 'wrong-password' })).res.status);
      expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    } finally {
      await fresh.close();
    }
  });
});
