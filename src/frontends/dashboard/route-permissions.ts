import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { PERMISSIONS, roleMay, type Action } from '../../features/members/permissions.js';

/** What a route's `:id` names: its account decides between 403 (own account's) and 404 (another's). */
type Resource = 'form' | 'submission' | 'hook' | 'key' | 'member' | 'invitation';

interface RoutePermission {
  action: Action;
  resource?: Resource;
  /** Only the instance admin (a user, whatever their role in the account they act in) may use it. */
  instanceAdmin?: true;
}

const r = (action: Action, resource?: Resource): RoutePermission => (resource ? { action, resource } : { action });
/** The Admin page: invisible (404) to anyone but the instance admin. */
const INSTANCE_ADMIN: RoutePermission = { action: 'self', instanceAdmin: true };

/**
 * Every signed-in dashboard route and what it does (the role each action needs is in
 * members/permissions.ts). A route missing here stops the app at start, so none is ever left
 * unchecked; the permission matrix test walks this same list.
 */
export const ROUTE_PERMISSIONS: Record<string, RoutePermission> = {
  'GET /dashboard/*': r('self'),
  'GET /dashboard/forms': r('submissions.read'),
  'POST /dashboard/forms': r('forms.manage'),
  'GET /dashboard/forms/:id/submissions': r('submissions.read', 'form'),
  'GET /dashboard/forms/:id/settings': r('forms.manage', 'form'),
  // Every role that reads the form may copy its snippet (nothing on the page changes it).
  'GET /dashboard/forms/:id/snippet': r('submissions.read', 'form'),
  'POST /dashboard/forms/:id/settings': r('forms.manage', 'form'),
  'POST /dashboard/forms/:id/submitter': r('forms.manage', 'form'),
  'GET /dashboard/forms/:id/delete': r('forms.manage', 'form'),
  'POST /dashboard/forms/:id/delete': r('forms.manage', 'form'),
  'GET /dashboard/forms/:id/export.csv': r('submissions.export', 'form'),
  'GET /dashboard/forms/:id/export.ndjson': r('submissions.export', 'form'),
  'GET /dashboard/forms/:id/email-log': r('submissions.read', 'form'),
  'POST /dashboard/forms/:id/notifications': r('forms.manage', 'form'),
  'POST /dashboard/forms/:id/notifications/test': r('forms.manage', 'form'),
  'POST /dashboard/forms/:id/notifications/:recipientId/verify': r('forms.manage', 'form'),
  // Addresses that take a POST only, opened by GET: a redirect to the page their form is on.
  'GET /dashboard/forms/:id/notifications': r('submissions.read', 'form'),
  'GET /dashboard/forms/:id/submitter': r('submissions.read', 'form'),
  'GET /dashboard/forms/:id/submissions/bulk': r('submissions.read', 'form'),
  'GET /dashboard/forms/:id/integrations': r('integrations.manage', 'form'),
  'POST /dashboard/forms/:id/integrations': r('integrations.manage', 'form'),
  'POST /dashboard/forms/:id/integrations/:integrationId/delete': r('integrations.manage', 'form'),
  'POST /dashboard/forms/:id/integrations/:integrationId/enable': r('integrations.manage', 'form'),
  'POST /dashboard/forms/:id/integrations/:integrationId/disable': r('integrations.manage', 'form'),
  'POST /dashboard/forms/:id/integrations/:integrationId/test': r('integrations.manage', 'form'),
  'POST /dashboard/forms/:id/submissions/bulk': r('submissions.triage', 'form'),
  'GET /dashboard/submissions/:id': r('submissions.read', 'submission'),
  'POST /dashboard/submissions/:id/mark': r('submissions.triage', 'submission'),
  'POST /dashboard/submissions/:id/delete': r('submissions.triage', 'submission'),
  'POST /dashboard/submissions/:id/triage': r('submissions.triage', 'submission'),
  'POST /dashboard/submissions/:id/send-again': r('deliveries.resend', 'submission'),
  // Every role reads submissions, their files included; another account's file is the route's own 404.
  'GET /dashboard/files/:id': r('submissions.read'),
  'GET /dashboard/keys': r('keys.manage'),
  'POST /dashboard/keys': r('keys.manage'),
  'GET /dashboard/keys/:id/revoke': r('keys.manage', 'key'),
  'POST /dashboard/keys/:id/revoke': r('keys.manage', 'key'),
  'GET /dashboard/hooks': r('hooks.manage'),
  'POST /dashboard/hooks': r('hooks.manage'),
  'POST /dashboard/hooks/:id/test': r('hooks.manage', 'hook'),
  'POST /dashboard/hooks/:id/redeliver': r('hooks.manage', 'hook'),
  'GET /dashboard/hooks/:id/delete': r('hooks.manage', 'hook'),
  'POST /dashboard/hooks/:id/delete': r('hooks.manage', 'hook'),
  'GET /dashboard/account': r('self'),
  'POST /dashboard/account': r('self'),
  'POST /dashboard/account/email': r('self'),
  'POST /dashboard/account/email/cancel': r('self'),
  'POST /dashboard/account/password': r('self'),
  'POST /dashboard/account/sessions/:id/revoke': r('self'),
  'POST /dashboard/account/sessions/revoke-others': r('self'),
  'POST /dashboard/account/erase': r('submissions.triage'),
  'POST /dashboard/account/delete': r('account.delete'),
  'POST /dashboard/account/switch': r('self'),
  'POST /dashboard/account/sso': r('self'),
  'POST /dashboard/account/reauth': r('self'),
  'GET /dashboard/audit': r('audit.read'),
  'GET /dashboard/audit.ndjson': r('audit.read'),
  'GET /dashboard/members': r('members.read'),
  'POST /dashboard/members/invitations': r('members.manage'),
  'POST /dashboard/members/invitations/:id/revoke': r('members.manage', 'invitation'),
  'POST /dashboard/members/:id/role': r('members.manage', 'member'),
  'POST /dashboard/members/:id/remove': r('members.manage', 'member'),
  'POST /dashboard/members/leave': r('self'),
  'GET /dashboard/invitations': r('self'),
  'POST /dashboard/invitations/:id/accept': r('self'),
  'POST /dashboard/members/transfer': r('ownership.transfer'),
  'POST /dashboard/members/team-name': r('team.rename'),
  'GET /dashboard/admin': INSTANCE_ADMIN,
  'POST /dashboard/admin/signup': INSTANCE_ADMIN,
  'POST /dashboard/admin/accounts': INSTANCE_ADMIN,
  'POST /dashboard/admin/accounts/:id/plan': INSTANCE_ADMIN,
  'POST /dashboard/admin/accounts/:id/disable': INSTANCE_ADMIN,
  'GET /dashboard/admin/accounts/:id/delete': INSTANCE_ADMIN,
  'POST /dashboard/admin/accounts/:id/delete': INSTANCE_ADMIN,
};

/** The table's key of a route: HEAD is answered by its GET. */
export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/** Refuses at start any signed-in route without an entry (registered on the signed-in scope). */
export function requireRoutePermissions(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const key = routeKey(method, route.url);
      if (!ROUTE_PERMISSIONS[key]) throw new Error(`The dashboard route ${key} has no entry in route-permissions.ts`);
    }
  });
}

/** True when the account holds the resource the route's `:id` names. */
async function accountHolds(app: FastifyInstance, accountId: string, resource: Resource, id: string): Promise<boolean> {
  const s = app.services;
  switch (resource) {
    case 'form':
      return (await s.forms.findForm(id))?.accountId === accountId;
    case 'submission':
      return s.submissionQueries.getSubmission(accountId, id).then(() => true, () => false);
    case 'hook':
      return (await s.hooks.listHooks(accountId)).some((hook) => hook.id === id);
    case 'key':
      return (await s.apiKeys.listApiKeys(accountId)).some((key) => key.id === id);
    case 'member':
      return (await s.members.findRole(accountId, id)) !== undefined;
    case 'invitation':
      return (await s.members.listInvitations(accountId)).some((invitation) => invitation.id === id);
  }
}

/**
 * The role check of every signed-in route: the session's role in its account (read at this
 * request) must allow the route's action. Refused: 403 `access_denied` for the account's own
 * resource, 404 for a resource of another account, as if the role could see it (docs/teams.md, Roles).
 */
export async function checkRoutePermission(app: FastifyInstance, request: FastifyRequest): Promise<void> {
  const permission = ROUTE_PERMISSIONS[routeKey(request.method, request.routeOptions.url ?? '')];
  if (!permission) throw new AppError('access_denied', 'This page is not open to any role.');
  if (permission.instanceAdmin && !request.user?.isAdmin) throw new AppError('not_found', 'There is no such page.');
  if (roleMay(request.role, permission.action)) return;
  const id = (request.params as Record<string, string> | undefined)?.id;
  if (permission.resource && id !== undefined && !(await accountHolds(app, request.owner!.id, permission.resource, id))) {
    throw new AppError('not_found', 'There is nothing here.');
  }
  const allowed = (PERMISSIONS[permission.action] as readonly string[]).join(', ');
  throw new AppError('access_denied', `Your role (${request.role ?? 'none'}) does not allow this. It needs: ${allowed}.`);
}
