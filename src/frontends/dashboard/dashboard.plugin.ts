import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { Account, User } from '../../features/accounts/account.types.js';
import type { MembershipSummary, Role } from '../../features/members/member.types.js';
import { isRole } from '../../features/members/member.types.js';
import { checkRoutePermission, requireRoutePermissions, routeKey } from './route-permissions.js';
import { memberPages } from './pages/members/members.routes.js';
import { invitePages } from './pages/invite/invite.routes.js';
import { waitingInvitationPages } from './pages/invitations/invitations.routes.js';
import { AppError } from '../../platform/errors.js';
import { toAppError } from '../../platform/http/error-handler.js';
import { accountPages } from './pages/account/account.routes.js';
import { adminPages } from './pages/admin/admin.routes.js';
import { auditPages } from './pages/audit/audit.routes.js';
import { appCss, appJs, faviconSvg } from './assets.js';
import { inboxCss, inboxJs } from './pages/inbox/inbox.assets.js';
import { authPages } from './pages/auth/auth.routes.js';
import { ssoPages } from './pages/sso/sso.routes.js';
import { emailPages, emailPublicPages } from './pages/email/email.routes.js';
import { formPages } from './pages/forms/forms.routes.js';
import { hookPages } from './pages/hooks/hooks.routes.js';
import { integrationPages } from './pages/integrations/integrations.routes.js';
import { keyPages } from './pages/keys/keys.routes.js';
import { postOnlyRedirects } from './pages/redirects/redirects.routes.js';
import { submissionPages } from './pages/submissions/submissions.routes.js';
import { SESSION_COOKIE, TIME_ZONE_COOKIE, csrfToken, csrfUserInfo, sendPage, setFlash } from './page.js';
import { canonicalTimeZone } from '../../platform/lib/time-zone.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account the signed-in user acts in on dashboard pages (the session's current account). */
    owner: Account | undefined;
    /** The signed-in person. */
    user: User | undefined;
    /** The user's role in `owner`, read from the database at every request. */
    role: Role | undefined;
    /** The user's accounts, for the account switcher (GET pages only). */
    memberships: MembershipSummary[] | undefined;
    /** The session belongs to an account an admin disabled: the log-in page says so. */
    ownerDisabled: boolean;
    /** When the user last signed on at the single sign-on provider in this session; null: never. */
    signedOnAt: string | null;
    /** Why a session that was valid opens nothing now, for the log-in page to say. */
    sessionEnded: string | undefined;
  }
}

/** What PASSWORD_LOGIN=false turns off, by route: log-in by password, sign-up and password reset. */
const PASSWORD_ROUTES = new Set([
  'POST /dashboard/login',
  'GET /dashboard/signup',
  'POST /dashboard/signup',
  'POST /dashboard/invite/:token/signup',
  'GET /dashboard/forgot-password',
  'POST /dashboard/forgot-password',
  'GET /dashboard/reset-password/:token',
  'POST /dashboard/reset-password/:token',
]);

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The owner's web UI under /dashboard: server-rendered pages, session cookie, CSRF on every POST. */
export async function dashboardPlugin(app: FastifyInstance): Promise<void> {
  await app.register(async (dashboard) => {
    const secure = app.config.baseUrl.startsWith('https:');
    await dashboard.register(cookie);
    await dashboard.register(formbody);
    // Behind https the cookie is `__Host-`: no sibling host can set it. Tokens are bound to the
    // session (csrfUserInfo), with a key every instance on the database shares.
    await dashboard.register(csrf, {
      cookieKey: secure ? '__Host-fg_csrf' : 'fg_csrf',
      cookieOpts: { path: secure ? '/' : '/dashboard', sameSite: 'lax', httpOnly: true, secure },
      getUserInfo: csrfUserInfo,
      csrfOpts: { hmacKey: await app.services.instanceSecrets.getSecret('csrf') },
    });
    dashboard.decorateRequest('owner', undefined);
    dashboard.decorateRequest('ownerDisabled', false);
    dashboard.decorateRequest('signedOnAt', null);
    dashboard.decorateRequest('sessionEnded', undefined);
    dashboard.decorateRequest('user', undefined);
    dashboard.decorateRequest('role', undefined);
    dashboard.decorateRequest('memberships', undefined);

    dashboard.addHook('onRequest', async (request, reply) => {
      reply.header('content-security-policy', CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'same-origin');
      reply.header('cache-control', 'no-store');
      const token = request.cookies[SESSION_COOKIE];
      const found = await app.services.sessions.findSession(token);
      // With single sign-on required, a session a password opened before the switch opens nothing.
      const session = found && !app.config.passwordLogin && found.signedOnAt === null ? undefined : found;
      if (found && !session) request.sessionEnded = 'This server now signs in by single sign-on only: sign in with it again.';
      let accountId = session?.accountId;
      let role = session?.role;
      if (session && role === undefined) {
        // Removed from the session's account since the last request: on to another of the user's accounts, if any.
        const other = (await app.services.members.listMemberships(session.user.id))[0];
        accountId = other?.accountId;
        role = other?.role;
        if (other) await app.services.sessions.switchAccount(token!, other.accountId);
        else request.sessionEnded = 'You are no longer a member of the account you were signed in to: its owner or an admin removed you, or you left it.';
      }
      const owner = accountId && role !== undefined ? await app.services.accounts.findAccount(accountId) : undefined;
      // A disabled account's sessions open nothing, even one started before it was disabled.
      request.owner = owner && !owner.disabled ? owner : undefined;
      request.ownerDisabled = owner?.disabled === true;
      request.user = request.owner ? session!.user : undefined;
      request.signedOnAt = request.owner ? session!.signedOnAt : null;
      request.role = request.owner && role !== undefined && isRole(role) ? role : undefined;
      if (request.owner && request.method === 'GET') request.memberships = await app.services.members.listMemberships(session!.user.id);
      // The account's zone is the one its browser last reported: emails then say times as the dashboard shows them.
      const zone = canonicalTimeZone(request.cookies[TIME_ZONE_COOKIE]);
      if (request.owner && zone && request.owner.timeZone !== zone) {
        await app.services.accounts.setTimeZone(request.owner.id, zone);
        request.owner = { ...request.owner, timeZone: zone };
      }
      if (!app.config.passwordLogin && PASSWORD_ROUTES.has(routeKey(request.method, request.routeOptions.url ?? ''))) {
        throw new AppError('not_found', 'Password log-in is turned off on this server: sign in with single sign-on.');
      }
    });
    // Every state-changing request must carry the CSRF token of the form it came from.
    dashboard.addHook('preHandler', async (request, reply) => {
      if (request.method === 'POST') await new Promise<void>((resolve, reject) => {
        dashboard.csrfProtection(request, reply, (err?: Error) => (err ? reject(err) : resolve()));
      });
    });

    dashboard.setErrorHandler(async (error, request, reply) => {
      const appError = toAppError(error);
      const csrfFailure = (error as { code?: string }).code?.startsWith('FST_CSRF');
      if (appError.statusCode >= 500 && !csrfFailure) request.log.error({ err: error }, 'dashboard failed');
      for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
      const [status, heading, text] = csrfFailure
        ? [403, 'Please try again', 'This form expired or did not come from this site. Go back, reload the page and submit it again.']
        : appError.statusCode === 404
          ? [404, 'Not found', `${appError.message} Check the address, or start again from your forms.`]
          : appError.statusCode >= 500
            ? // The request ID finds the error in the logs when the owner reports it.
              [appError.statusCode, 'Something went wrong', `${appError.message} Request ID: ${request.id}`]
            : [appError.statusCode, 'That did not work', appError.message];
      // A fresh token, so the layout's log-out button works from an error page too.
      return sendPage(reply, 'message', { title: heading, account: request.owner, user: request.user, role: request.role, csrf: csrfToken(request, reply) }, { heading, text }, status);
    });

    dashboard.get('/dashboard/assets/app.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(appCss + inboxCss),
    );
    // Browsers ask for /favicon.ico on every site; an SVG answers it (every current browser draws one).
    dashboard.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(faviconSvg),
    );
    dashboard.get('/dashboard/assets/app.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(appJs + inboxJs),
    );
    // A fresh instance (no account yet, sign-up open) opens on sign-up: its first visitor has nothing to log in to.
    dashboard.get('/dashboard', { schema: { hide: true } }, async (request, reply) => {
      if (request.owner) return reply.redirect('/dashboard/forms', 303);
      const fresh = !request.ownerDisabled && !(await app.services.accounts.hasAnyAccount()) && (await app.services.admin.signupOpen());
      return reply.redirect(fresh ? '/dashboard/signup' : '/dashboard/login', 303);
    });

    await dashboard.register(authPages);
    await dashboard.register(ssoPages);
    await dashboard.register(invitePages);
    await dashboard.register(emailPublicPages);
    // Everything below needs a logged-in owner.
    await dashboard.register(async (owned) => {
      // Every route below names what it does in route-permissions.ts; one that does not stops the start.
      requireRoutePermissions(owned);
      owned.addHook('preHandler', async (request, reply) => {
        if (!request.owner) {
          if (request.sessionEnded) setFlash(reply, { notice: request.sessionEnded }, secure);
          return reply.redirect('/dashboard/login', 303);
        }
        await checkRoutePermission(app, request);
      });
      await owned.register(formPages);
      await owned.register(submissionPages);
      await owned.register(keyPages);
      await owned.register(hookPages);
      await owned.register(accountPages);
      await owned.register(emailPages);
      await owned.register(integrationPages);
      await owned.register(adminPages);
      await owned.register(auditPages);
      await owned.register(memberPages);
      await owned.register(waitingInvitationPages);
      await owned.register(postOnlyRedirects);
      // Lowest priority in the router: any other dashboard address is a 404 page in the layout.
      owned.get('/dashboard/*', { schema: { hide: true } }, async () => {
        throw new AppError('not_found', 'There is no page at this address.');
      });
    });
  });
}
