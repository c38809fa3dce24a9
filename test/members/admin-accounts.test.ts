import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount } from '../helpers/factories.js';

// The instance admin brings people onto the instance from the Admin page, and can make sign-up
// invitation-only (DASHBOARD_SIGNUP=invite's switch in the database).
let t: AppUnderTest;
const PASSWORD = 'correct horse battery';

async function signIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  return client;
}

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('the Admin page and teams', () => {
  it('creates an account for someone, who then logs in as its owner', async () => {
    const admin = await createAccount(t.services, { email: `admin-${Date.now()}@example.com`, password: PASSWORD });
    const client = await signIn(admin.email);
    await client.get('/dashboard/admin');
    const email = `made-${Date.now()}@example.com`;
    const { res } = await client.post('/dashboard/admin/accounts', { email, password: PASSWORD });
    expect(res.status).toBe(303);
    expect((await client.get('/dashboard/admin')).html).toContain(`${email} has an account now.`);
    expect((await t.services.accounts.findUserByEmail(email))!.isAdmin).toBe(false);
    const person = await signIn(email);
    expect((await person.get('/dashboard/forms')).html).toContain('(owner)');
    // A taken address is refused on the page, by its sentence.
    await client.get('/dashboard/admin');
    expect((await client.post('/dashboard/admin/accounts', { email, password: PASSWORD })).res.status).toBe(400);
  });

  it('makes sign-up invitation-only, and only the instance admin may', async () => {
    const admin = await t.services.accounts.getAccountByIdOrEmail((await t.services.admin.listAccounts()).find((a) => a.ownerIsAdmin)!.id);
    const client = await signIn(admin.email);
    await client.get('/dashboard/admin');
    expect((await client.post('/dashboard/admin/signup', { mode: 'invite' })).res.status).toBe(303);
    expect(await t.services.admin.signupMode()).toBe('invite');
    expect((await client.get('/dashboard/admin')).html).toContain('by invitation only');
    expect((await new DashboardClient(t).get('/dashboard/signup')).res.status).toBe(404);

    // An admin member of the admin's account is not the instance admin: the page does not exist for them.
    const email = `helper-${Date.now()}@example.com`;
    await t.services.members.add(admin.id, { email, role: 'admin', password: PASSWORD });
    const helper = await signIn(email);
    expect((await helper.get('/dashboard/admin')).res.status).toBe(404);
    await t.services.admin.setSignupOpen(true);
  });
});
