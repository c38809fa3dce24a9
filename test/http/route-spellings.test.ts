import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_PERMISSIONS, routeKey } from '../../src/frontends/dashboard/route-permissions.js';
import { roleMay } from '../../src/features/members/permissions.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm, insertSubmissions } from '../helpers/factories.js';

/**
 * Every registered route × every kind of visitor × every spelling of its path: each spelling
 * gets exactly the decision of the canonical one. A probe header makes every handler answer 299
 * with its route instead of running, so what is compared is the guards' decision alone (session,
 * CSRF, role, instance admin, PASSWORD_LOGIN, API key), and nothing a guard lets through changes
 * anything.
 */
const PASSWORD = 'correct horse battery';
const PROBE = 'x-formgate-probe';
const REACHED = 299;
/** The methods a browser or client sends (fetch refuses TRACE; HEAD and OPTIONS are answered for GET and CORS). */
const WALKED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface Visitor {
  name: string;
  /** A dashboard session (none: not signed in). */
  client: DashboardClient;
  /** The management API key it presents. */
  /** Keys of one scope and account, each used for at most 100 probes: the walk is not what the per-key limit measures. */
  apiKeys?: string[];
  probes?: number;
  /** Its role in account A, where the canonical paths' resources are. */
  role?: 'owner' | 'admin' | 'member' | 'viewer';
  instanceAdmin: boolean;
}

const unique = () => `s-${randomBase62(8).toLowerCase()}@example.com`;

/** The app's own route list, each route answering a probe before its handler runs. */
function probedRoutes(into: Set<string>) {
  return (route: RouteOptions) => {
    for (const method of [route.method].flat()) if (WALKED_METHODS.includes(method)) into.add(routeKey(method, route.url));
    const handler = route.handler;
    const key = `${[route.method].flat().join(',')} ${route.url}`;
    route.handler = function (request, reply) {
      if (request.headers[PROBE] === '1') return reply.code(REACHED).header('x-route', key).send('reached');
      return handler.call(this, request, reply);
    };
    // Bodies and queries are the handlers' business: a probe sends none.
    if (route.schema) {
      const { body: _body, querystring: _querystring, ...rest } = route.schema;
      route.schema = rest;
    }
  };
}

/** Each spelling a router might take for `path`: one letter encoded in each segment, `/%64ashboard`, a trailing and a doubled slash. */
function spellingsOf(path: string): string[] {
  const segments = path.split('/').slice(1);
  const spellings = new Set<string>();
  segments.forEach((segment, i) => {
    const at = segment.search(/[a-zA-Z]/);
    if (at === -1) return;
    const encoded = `${segment.slice(0, at)}%${segment.charCodeAt(at).toString(16)}${segment.slice(at + 1)}`;
    spellings.add('/' + segments.map((s, j) => (j === i ? encoded : s)).join('/'));
  });
  spellings.add(path.replace(/^\/dashboard/, '/%64ashboard'));
  spellings.add(`${path}/`);
  spellings.add(path.replace(/^\/([^/]+)\//, '/$1//'));
  spellings.delete(path);
  return [...spellings];
}

let clientNumber = 0;

async function decision(t: AppUnderTest, visitor: Visitor, method: string, path: string): Promise<string> {
  const headers: Record<string, string> = { [PROBE]: '1', cookie: [...visitor.client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  // Each probe from an address of its own (documentation range, behind the trusted loopback
  // proxy): the per-address limits on failed keys and log-ins are not what this walk compares.
  clientNumber += 1;
  headers['x-forwarded-for'] = `2001:db8:${(clientNumber >> 16).toString(16)}:${(clientNumber & 0xffff).toString(16)}::1`;
  if (visitor.apiKeys) {
    visitor.probes = (visitor.probes ?? 0) + 1;
    headers.authorization = `Bearer ${visitor.apiKeys[Math.floor(visitor.probes / 100) % visitor.apiKeys.length]}`;
  }
  let body: string | undefined;
  if (!['GET', 'DELETE'].includes(method)) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams({ _csrf: visitor.client.csrf }).toString();
  }
  const res = await t.fetch(`${path}`, { method, headers, body, redirect: 'manual' });
  await res.arrayBuffer();
  return [res.status, res.headers.get('location') ?? '', res.headers.get('x-route') ?? ''].join(' ').trim();
}

async function walk(t: AppUnderTest, routes: Set<string>, visitors: Visitor[], pathOf: (key: string) => string, expected?: (key: string, visitor: Visitor) => number | undefined) {
  let compared = 0;
  for (const key of [...routes].sort()) {
    const [method, url] = key.split(' ') as [string, string];
    const path = pathOf(key);
    for (const visitor of visitors) {
      const canonical = await decision(t, visitor, method, path);
      const want = expected?.(key, visitor);
      if (want !== undefined) expect(Number(canonical.split(' ')[0]), `${visitor.name} ${key}`).toBe(want);
      for (const spelled of spellingsOf(path)) {
        expect(await decision(t, visitor, method, spelled), `${visitor.name} ${method} ${spelled} (${url})`).toBe(canonical);
        compared += 1;
      }
    }
  }
  return compared;
}

let t: AppUnderTest;
let ssoOnly: AppUnderTest;
const routes = new Set<string>();
const ssoRoutes = new Set<string>();
const visitors: Visitor[] = [];
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp({ checkResponses: false, env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', TRUST_PROXY: '1' }, onRoute: probedRoutes(routes) });
  ssoOnly = await buildTestApp({
    checkResponses: false,
    env: { TRUST_PROXY: '1', PASSWORD_LOGIN: 'false', OIDC_ISSUER: 'http://127.0.0.1:9/issuer', OIDC_CLIENT_ID: 'formgate', OIDC_CLIENT_SECRET: 'secret' },
    onRoute: probedRoutes(ssoRoutes),
  });
  const s = t.services;
  // The first user is the instance admin; the second account's owner is not.
  const a = await createAccount(s, { email: unique(), password: PASSWORD, planId: 'pro' });
  const b = await createAccount(s, { email: unique(), password: PASSWORD, planId: 'pro' });
  const members = {} as Record<'admin' | 'member' | 'viewer', string>;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    members[role] = unique();
    await s.members.add(a.id, { email: members[role], role, password: PASSWORD });
  }
  const form = await createForm(s, a.id);
  const [submission] = await insertSubmissions(s, form.id, [{ createdAt: new Date().toISOString() }]);
  const { hook } = await s.hooks.createHook(a.id, { formId: form.id, targetUrl: 'https://127.0.0.1:9/hook' });
  const { key } = await s.apiKeys.createApiKey(a.id, 'spellings');
  const viewer = await s.accounts.findUserByEmail(members.viewer);
  const invitation = (await s.members.invite(a.id, { email: unique(), role: 'viewer' })).invitation.id;
  Object.assign(ids, { form: form.id, submission: submission!, hook: hook.id, key: key.id, member: viewer!.id, invitation, account: b.id });

  const signedIn = async (email: string) => {
    const client = new DashboardClient(t);
    await client.get('/dashboard/login');
    expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
    await client.get('/dashboard/account');
    return client;
  };
  const anonymous = new DashboardClient(t);
  await anonymous.get('/dashboard/login');
  visitors.push({ name: 'anonymous', client: anonymous, instanceAdmin: false });
  visitors.push({ name: 'instance admin (owner of A)', client: await signedIn(a.email), role: 'owner', instanceAdmin: true });
  for (const role of ['admin', 'member', 'viewer'] as const) visitors.push({ name: `${role} of A`, client: await signedIn(members[role]), role, instanceAdmin: false });
  visitors.push({ name: 'owner of B', client: await signedIn(b.email), instanceAdmin: false });
  const keysOf = async (accountId: string, scope: string) => Promise.all(Array.from({ length: 20 }, async () => (await s.apiKeys.createApiKey(accountId, scope, scope)).apiKey));
  visitors.push({ name: 'read key of A', client: new DashboardClient(t), apiKeys: await keysOf(a.id, 'read'), instanceAdmin: false });
  visitors.push({ name: 'triage key of B', client: new DashboardClient(t), apiKeys: await keysOf(b.id, 'triage'), instanceAdmin: false });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await ssoOnly?.close();
});

/** The canonical path of a route, its parameters naming account A's resources. */
function pathOf(key: string): string {
  const url = key.split(' ')[1]!;
  const resource = ROUTE_PERMISSIONS[key]?.resource;
  const id = url.startsWith('/dashboard/admin/accounts/')
    ? ids.account!
    : resource
      ? ids[resource]!
      : url.startsWith('/v1/api/hooks/') ? ids.hook! : url.startsWith('/v1/api/submissions/') ? ids.submission! : url.includes('/forms/:id') ? ids.form! : 'none';
  return url.replace('/*', '/no-such-page').replace(':id', id).replace(':formId', ids.form!).replace(/:[a-zA-Z]+/g, 'none');
}

/** What the table says a signed-in route answers each visitor of the dashboard. */
function expectedOnDashboard(key: string, visitor: Visitor): number | undefined {
  const permission = ROUTE_PERMISSIONS[key];
  if (!permission || visitor.apiKeys) return undefined;
  if (visitor.name === 'anonymous') return 303;
  if (permission.instanceAdmin) return visitor.instanceAdmin ? REACHED : 404;
  // The owner of B may do everything in B; that A's resource is not B's is the handler's 404
  // (the permission matrix runs the handlers).
  if (!visitor.role) return REACHED;
  return roleMay(visitor.role, permission.action) ? REACHED : 403;
}

describe('every route, every visitor, every spelling', () => {
  it('lists the routes of the dashboard, the API, MCP and the public endpoints', () => {
    expect([...routes].filter((k) => k.includes(' /dashboard')).length).toBeGreaterThan(80);
    for (const key of ['GET /dashboard/admin', 'POST /dashboard/admin/accounts/:id/plan', 'GET /v1/api/forms', 'POST /v1/mcp', 'POST /v1/submit/:formId', 'GET /v1/files/:id']) {
      expect(routes.has(key), key).toBe(true);
    }
  });

  it('gives each spelling the decision of the canonical path', async () => {
    const compared = await walk(t, routes, visitors, pathOf, expectedOnDashboard);
    expect(compared).toBeGreaterThan(3000);
  }, 240_000);

  it('keeps password log-in, sign-up and reset closed under PASSWORD_LOGIN=false, however spelled', async () => {
    const anonymous = new DashboardClient(ssoOnly);
    await anonymous.get('/dashboard/login');
    const visitor: Visitor = { name: 'anonymous', client: anonymous, instanceAdmin: false };
    const passwordRoutes = new Set(['GET /dashboard/signup', 'POST /dashboard/signup', 'POST /dashboard/login', 'GET /dashboard/forgot-password', 'POST /dashboard/forgot-password', 'GET /dashboard/reset-password/:token', 'POST /dashboard/reset-password/:token', 'POST /dashboard/invite/:token/signup']);
    const publicRoutes = new Set([...ssoRoutes].filter((key) => key.includes(' /dashboard') && !ROUTE_PERMISSIONS[key]));
    for (const key of passwordRoutes) expect(publicRoutes.has(key), key).toBe(true);
    const compared = await walk(ssoOnly, publicRoutes, [visitor], (key) => key.split(' ')[1]!.replace(/:[a-zA-Z]+/g, 'none'), (key) => (passwordRoutes.has(key) ? 404 : undefined));
    expect(compared).toBeGreaterThan(50);
  }, 120_000);
});

describe('the spellings themselves', () => {
  it('are all different from the canonical path and reach the same route', async () => {
    expect(spellingsOf('/dashboard/admin')).toEqual(['/%64ashboard/admin', '/dashboard/%61dmin', '/dashboard/admin/', '/dashboard//admin']);
    const admin = visitors.find((v) => v.instanceAdmin)!;
    for (const spelled of spellingsOf('/dashboard/admin')) {
      expect(await decision(t, admin, 'GET', spelled), spelled).toBe(`${REACHED}  GET /dashboard/admin`);
    }
  });
});
