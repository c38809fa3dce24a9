import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_PERMISSIONS, routeKey } from '../../src/frontends/dashboard/route-permissions.js';
import type { Role } from '../../src/features/members/member.types.js';
import { roleMay } from '../../src/features/members/permissions.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';

/**
 * Every signed-in dashboard route × every role (docs/teams.md, Roles): allowed, 403
 * `access_denied` for the account's own resource, or 404 for another account's. The route list
 * is the app's own (onRoute), so a new route without an entry in route-permissions.ts fails here.
 */
let t: AppUnderTest;
const registered = new Set<string>();
const PASSWORD = 'correct horse battery';
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];
const clients = new Map<Role, DashboardClient>();
const users = new Map<Role, { id: string; email: string }>();
let accountA: string;
let accountB: string;
const other: Record<string, string> = {};
const own: Record<string, string> = {};

const unique = () => `p-${randomBase62(8).toLowerCase()}@example.com`;

async function signIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  const { res } = await client.post('/dashboard/login', { email, password: PASSWORD });
  expect(res.status).toBe(303);
  await client.get('/dashboard/forms');
  return client;
}

/** Fresh resources of account `accountId`, so an allowed destructive action never spends the fixed ones. */
/**
 * One of each resource in the account. An invitation only when asked: an account makes at most
 * INVITATIONS_PER_DAY, and only the routes that revoke one need their own.
 */
async function freshResources(accountId: string, options: { invitation: boolean } = { invitation: true }): Promise<Record<string, string>> {
  const s = t.services;
  const form = await createForm(s, accountId);
  const [submission] = await insertSubmissions(s, form.id, [{ createdAt: new Date().toISOString() }]);
  const { hook } = await s.hooks.createHook(accountId, { formId: form.id, targetUrl: 'https://127.0.0.1:9/hook' });
  const { key } = await s.apiKeys.createApiKey(accountId, 'matrix');
  const added = await s.members.add(accountId, { email: unique(), role: 'viewer', password: PASSWORD });
  const invitation = options.invitation ? (await s.members.invite(accountId, { email: unique(), role: 'viewer' })).invitation.id : own.invitation!;
  const spare = await createAccount(s, { planId: 'pro' });
  if (!('member' in added)) throw new Error('expected a member');
  return { form: form.id, submission: submission!, hook: hook.id, key: key.id, member: added.member.userId, invitation, account: spare.id };
}

/** The path with `:id` (and any other parameter) filled in. */
function pathOf(url: string, ids: Record<string, string>, resource: string | undefined): string {
  const id = url.startsWith('/dashboard/admin/accounts/') ? ids.account! : resource ? ids[resource]! : 'none';
  return url.replace('/*', '/no-such-page').replace(':id', encodeURIComponent(id)).replace(/:[a-zA-Z]+/g, 'none');
}

function bodyOf(key: string, ids: Record<string, string>, email: string): Record<string, string> {
  const bodies: Record<string, Record<string, string>> = {
    'POST /dashboard/forms': { name: 'Matrix form' },
    'POST /dashboard/hooks': { formId: ids.form!, targetUrl: 'https://127.0.0.1:9/new' },
    'POST /dashboard/keys': { name: 'Matrix key' },
    'POST /dashboard/account': { displayName: 'Matrix' },
    'POST /dashboard/account/email': { email: unique(), currentPassword: 'wrong password' },
    'POST /dashboard/account/password': { currentPassword: 'wrong password', newPassword: 'another password' },
    'POST /dashboard/account/erase': { email: 'nobody@example.com' },
    'POST /dashboard/account/delete': { confirmEmail: 'not-the-email@example.com', currentPassword: PASSWORD },
    'POST /dashboard/account/switch': { accountId: accountA },
    'POST /dashboard/members/invitations': { email: unique(), role: 'viewer' },
    'POST /dashboard/members/:id/role': { role: 'member' },
    'POST /dashboard/members/transfer': { email, confirm: '1' },
    'POST /dashboard/members/leave': { confirm: '1' },
    'POST /dashboard/members/team-name': { teamName: 'Matrix team' },
    'POST /dashboard/members/:id/remove': { confirm: '1' },
    'POST /dashboard/admin/signup': { open: '1' },
    'POST /dashboard/admin/accounts': { email: unique(), password: PASSWORD },
    'POST /dashboard/admin/accounts/:id/plan': { plan: 'pro' },
    'POST /dashboard/admin/accounts/:id/disable': { disabled: '1' },
    'POST /dashboard/submissions/:id/mark': { spam: '1' },
    'POST /dashboard/submissions/:id/send-again': { channel: 'hook', messageId: 'dlv_none' },
    'POST /dashboard/submissions/:id/triage': { action: 'done' },
    'POST /dashboard/forms/:id/submissions/bulk': { action: 'done', ids: ids.submission! },
    'POST /dashboard/hooks/:id/redeliver': { hours: '1' },
    'POST /dashboard/forms/:id/delete': { confirmName: 'not the name' },
  };
  return bodies[key] ?? {};
}

async function request(client: DashboardClient, method: string, path: string, body: Record<string, string>) {
  if (method === 'GET') return client.get(path);
  await client.get('/dashboard/account');
  return client.post(path, body);
}

beforeAll(async () => {
  t = await buildTestApp({
    env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '500' },
    onRoute: (route) => {
      for (const method of [route.method].flat()) if (route.url.startsWith('/dashboard')) registered.add(routeKey(method, route.url));
    },
  });
  // The first user is the instance admin: the owner of A may open the Admin page.
  const owner = await createAccount(t.services, { email: unique(), password: PASSWORD, planId: 'pro' });
  accountA = owner.id;
  users.set('owner', { id: owner.id, email: owner.email });
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const email = unique();
    const added = await t.services.members.add(accountA, { email, role, password: PASSWORD });
    if (!('member' in added)) throw new Error('expected a member');
    users.set(role, { id: added.member.userId, email });
  }
  const b = await createAccount(t.services, { email: unique(), password: PASSWORD, planId: 'pro' });
  accountB = b.id;
  Object.assign(other, await freshResources(accountB));
  Object.assign(own, await freshResources(accountA));
  for (const role of ROLES) clients.set(role, await signIn(users.get(role)!.email));
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the permission table', () => {
  it('names every signed-in dashboard route the app registered, and no other', () => {
    const signedIn = [...registered].filter((key) => ROUTE_PERMISSIONS[key]);
    expect(signedIn.sort()).toEqual(Object.keys(ROUTE_PERMISSIONS).sort());
    expect(signedIn.length).toBeGreaterThan(60);
  });
});

describe('every signed-in route × every role', () => {
  for (const key of Object.keys(ROUTE_PERMISSIONS).sort()) {
    it(key, async () => {
      const { action, resource, instanceAdmin } = ROUTE_PERMISSIONS[key]!;
      const [method, url] = key.split(' ') as [string, string];
      for (const role of ROLES) {
        const client = clients.get(role)!;
        // The Admin page is its user's: the owner of A is the instance's first user, its admin.
        const allowed = instanceAdmin ? role === 'owner' : roleMay(role, action);
        const label = `${role} ${key}`;
        if (url === '/dashboard/*') {
          expect((await client.get('/dashboard/no-such-page')).res.status, label).toBe(404);
          continue;
        }
        if (allowed) {
          // A GET changes nothing: it reads the shared resources; an action gets its own.
          const ids = method === 'GET' ? own : await freshResources(accountA, { invitation: key.includes('/invitations/:id') });
          const target = key === 'POST /dashboard/members/transfer' ? (await t.services.members.add(accountA, { email: unique(), role: 'admin', password: PASSWORD })) : undefined;
          const email = target && 'member' in target ? target.member.email : '';
          const { res } = await request(client, method, pathOf(url, ids, resource), bodyOf(key, ids, email));
          if (key === 'POST /dashboard/members/leave' && role === 'owner') {
            // Allowed to try, refused by the rule that the owner hands over ownership first.
            expect(res.status, label).toBe(403);
            continue;
          }
          expect(res.status, label).toBeLessThan(500);
          expect(res.status, label).not.toBe(403);
          // A route whose second parameter names a message, an integration or a recipient finds none
          // of those here (the handler's own 404); the check before it let the request through.
          if (resource && !/:(integrationId|recipientId)|send-again/.test(key)) expect(res.status, label).not.toBe(404);
          // Put back what the allowed action changed, so the next role starts from the same place.
          if (key === 'POST /dashboard/members/leave') await t.services.members.add(accountA, { email: users.get(role)!.email, role, password: PASSWORD });
          if (key === 'POST /dashboard/members/transfer') await t.services.members.transferOwnership(accountA, target && 'member' in target ? target.member.userId : '', users.get('owner')!.email);
        } else {
          const denied = await request(client, method, pathOf(url, own, resource), bodyOf(key, own, users.get('admin')!.email));
          if (instanceAdmin) {
            expect(denied.res.status, label).toBe(404);
            continue;
          }
          expect(denied.res.status, label).toBe(403);
          expect(denied.html, label).toContain(`Your role (${role}) does not allow this`);
        }
        if (resource) {
          // Another account's resource: a 404, whatever the role may do in its own account.
          const foreign = await request(client, method, pathOf(url, other, resource), bodyOf(key, other, ''));
          expect(foreign.res.status, `${label} (another account's)`).toBe(404);
        }
      }
    }, 60_000);
  }
});

describe('membership is read at every request', () => {
  it('refuses a removed member\'s open session on its very next request, and a lowered role at once', async () => {
    const email = unique();
    await t.services.members.add(accountA, { email, role: 'admin', password: PASSWORD });
    const client = await signIn(email);
    expect((await client.get('/dashboard/keys')).res.status).toBe(200);
    await t.services.members.setRole(accountA, { email }, 'viewer');
    const lowered = await client.get('/dashboard/keys');
    expect(lowered.res.status).toBe(403);
    expect((await client.get('/dashboard/forms')).res.status).toBe(200);
    await t.services.members.remove(accountA, { email });
    const removed = await client.get('/dashboard/forms');
    expect(removed.res.status).toBe(303);
    expect(removed.res.headers.get('location')).toBe('/dashboard/login');
  });

  it('the account switcher moves a session only into an account its user belongs to', async () => {
    const email = unique();
    await t.services.members.add(accountA, { email, role: 'viewer', password: PASSWORD });
    const client = await signIn(email);
    await client.get('/dashboard/forms');
    const refused = await client.post('/dashboard/account/switch', { accountId: accountB });
    expect(refused.res.status).toBe(404);
    // Still acting in its own account, with its own role.
    const forms = await client.get('/dashboard/forms');
    expect(forms.res.status).toBe(200);
    expect((await client.get('/dashboard/keys')).res.status).toBe(403);
    const [session] = await t.handle.db.selectFrom('sessions').innerJoin('users', 'users.id', 'sessions.user_id').select('sessions.account_id').where('users.email', '=', email).execute();
    expect(session!.account_id).toBe(accountA);
  });
});
