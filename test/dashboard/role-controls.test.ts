import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_PERMISSIONS } from '../../src/frontends/dashboard/route-permissions.js';
import type { Role } from '../../src/features/members/member.types.js';
import { roleMay } from '../../src/features/members/permissions.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';

/**
 * No page shows a control its role would be refused: every form a page posts and every dashboard
 * link it offers, on every page each role can open, is a route the role may use.
 */
const PASSWORD = 'correct horse battery';
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];
const unique = () => `r-${randomBase62(8).toLowerCase()}@example.com`;

let t: TestApp;
const clients = new Map<Role, DashboardClient>();
let pages: string[] = [];
const emails = new Map<Role, string>();
const userIds = new Map<Role, string>();
let formId = '';

const patterns = Object.entries(ROUTE_PERMISSIONS)
  .filter(([key]) => key !== 'GET /dashboard/*')
  .map(([key, permission]) => {
    const [method, url] = key.split(' ') as [string, string];
    return { method, permission, key, pattern: new RegExp(`^${url.replace(/:[a-zA-Z]+/g, '[^/]+').replace(/\./g, '\\.')}$`) };
  });

/** The route a control leads to, by the app's own table. */
function routeOf(method: string, path: string) {
  return patterns.find((p) => p.method === method && p.pattern.test(path));
}

/** Every (method, path) a page offers: forms that post, and links into the signed-in dashboard. */
function controlsOf(html: string): Array<{ method: string; path: string }> {
  const controls: Array<{ method: string; path: string }> = [];
  for (const form of html.matchAll(/<form\b[^>]*>/g)) {
    const tag = form[0];
    const method = (/method="([^"]+)"/.exec(tag)?.[1] ?? 'get').toUpperCase();
    const action = /action="([^"]+)"/.exec(tag)?.[1];
    if (action?.startsWith('/dashboard/')) controls.push({ method, path: action.split('?')[0]!.replace(/&amp;/g, '&') });
  }
  for (const link of html.matchAll(/<a\b[^>]*href="(\/dashboard\/[^"#?]*)/g)) controls.push({ method: 'GET', path: link[1]! });
  return controls;
}

beforeAll(async () => {
  t = await startTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  const owner = await createAccount(t.services, { email: unique(), password: PASSWORD, planId: 'business' });
  const form = await createForm(t.services, owner.id, { accessKey: 'site-key-1' });
  formId = form.id;
  const [submission] = await insertSubmissions(t.services, form.id, [{ createdAt: new Date().toISOString(), payload: { email: 'visitor@example.com', message: 'Hello' } }]);
  await t.services.hooks.createHook(owner.id, { formId: form.id, targetUrl: 'https://127.0.0.1:9/hook' });
  await t.services.apiKeys.createApiKey(owner.id, 'key');
  emails.set('owner', owner.email);
  userIds.set('owner', owner.id);
  for (const role of ['admin', 'member', 'viewer'] as const) {
    emails.set(role, unique());
    const added = await t.services.members.add(owner.id, { email: emails.get(role)!, role, password: PASSWORD });
    if ('member' in added) userIds.set(role, added.member.userId);
  }
  // Assigned, with notes: the triage panel and the list show the assignee and the notes' author.
  await t.services.inbox.apply(owner.id, [submission!], { kind: 'assign', memberId: userIds.get('member')! });
  await t.services.inbox.setNotes(owner.id, submission!, 'Called back.', userIds.get('member'));
  for (const role of ROLES) {
    const client = new DashboardClient(t.url);
    await client.get('/dashboard/login');
    expect((await client.post('/dashboard/login', { email: emails.get(role)!, password: PASSWORD })).res.status).toBe(303);
    clients.set(role, client);
  }
  pages = [
    '/dashboard/forms',
    `/dashboard/forms/${form.id}/submissions`,
    `/dashboard/forms/${form.id}/submissions?assignee=${userIds.get('member')}`,
    `/dashboard/submissions/${submission}`,
    `/dashboard/forms/${form.id}/settings`,
    `/dashboard/forms/${form.id}/snippet`,
    `/dashboard/forms/${form.id}/integrations`,
    `/dashboard/forms/${form.id}/email-log`,
    '/dashboard/hooks',
    '/dashboard/keys',
    '/dashboard/members',
    '/dashboard/account',
    '/dashboard/audit',
  ];
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('controls by role', () => {
  for (const role of ROLES) {
    it(`shows a ${role} only what a ${role} may do`, async () => {
      const client = clients.get(role)!;
      const refused: string[] = [];
      let seen = 0;
      for (const page of pages) {
        const { res, html } = await client.get(page);
        if (res.status !== 200) continue;
        for (const control of controlsOf(html)) {
          const route = routeOf(control.method, control.path);
          if (!route) continue;
          seen += 1;
          const allowed = route.permission.instanceAdmin ? role === 'owner' : roleMay(role, route.permission.action);
          if (!allowed) refused.push(`${page}: ${control.method} ${control.path} (${route.permission.action})`);
        }
      }
      expect(seen).toBeGreaterThan(10);
      expect([...new Set(refused)]).toEqual([]);
    });
  }

  it('offers only the members who may triage as assignees, on the list and the submission\'s page', async () => {
    for (const role of ROLES) {
      for (const page of pages.filter((p) => p.includes('submissions'))) {
        const { html } = await clients.get(role)!.get(page);
        expect(html, `${role} on ${page}`).not.toContain(`<option value="${userIds.get('viewer')}"`);
        if (role !== 'viewer') expect(html, `${role} on ${page}`).toContain(`<option value="${userIds.get('member')}"`);
      }
    }
  });
});

describe('the snippet, read only', () => {
  for (const role of ['member', 'viewer'] as const) {
    it(`a ${role} reads the endpoint and the snippets from the form's pages, with no settings control`, async () => {
      const client = clients.get(role)!;
      const submissions = await client.get(`/dashboard/forms/${formId}/submissions`);
      expect(submissions.html).toContain(`href="/dashboard/forms/${formId}/snippet">Snippet</a>`);
      expect(submissions.html).not.toContain(`/dashboard/forms/${formId}/settings`);
      const { res, html } = await client.get(`/dashboard/forms/${formId}/snippet`);
      expect(res.status).toBe(200);
      expect(html).toContain(`<code class="submit-url" id="submit-url">${t.config.baseUrl}/v1/submit/${formId}</code>`);
      expect(html).toContain(`&lt;form action=&quot;${t.config.baseUrl}/v1/submit/${formId}&quot; method=&quot;POST&quot;&gt;`);
      expect(html).toContain('name=&quot;access_key&quot; value=&quot;site-key-1&quot;');
      expect(html).toContain('id="snippet-react"');
      const content = html.slice(html.indexOf('<h1 class="page-title">Snippet</h1>'), html.indexOf('</main>'));
      expect(content).toContain('id="snippet"');
      expect(content).not.toMatch(/<(form|input|select|textarea)\b/);
      // Its settings stay the owner's and admins'.
      expect((await client.get(`/dashboard/forms/${formId}/settings`)).res.status).toBe(403);
    });
  }

  it("another account's form is not found", async () => {
    const other = await createAccount(t.services, { email: unique(), password: PASSWORD });
    const otherForm = await createForm(t.services, other.id);
    expect((await clients.get('viewer')!.get(`/dashboard/forms/${otherForm.id}/snippet`)).res.status).toBe(404);
  });
});
