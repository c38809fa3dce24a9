import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../features/accounts/account.types.js';
import { SESSION_TTL_MS } from '../../features/accounts/session.service.js';
import { SESSION_COOKIE, setFlash } from './page.js';

/**
 * The account a user's new session acts in: the one asked for when they belong to it, else the
 * first they own, else their oldest membership. Undefined: they belong to no account.
 */
export async function startingAccountOf(app: FastifyInstance, userId: string, wanted?: string): Promise<string | undefined> {
  const memberships = await app.services.members.listMemberships(userId);
  return (memberships.find((m) => m.accountId === wanted) ?? memberships[0])?.accountId;
}

/**
 * Where a sign-in lands: the invitations waiting for the user's confirmed address when there are
 * any (joining is their click there), else their forms.
 */
export async function landingPageOf(app: FastifyInstance, user: User): Promise<string> {
  return (await app.services.members.listWaitingFor(user)).length > 0 ? '/dashboard/invitations' : '/dashboard/forms';
}

/** Signs the browser in as a user (after a password or single sign-on), acting in `accountId`, and opens `to`. */
export async function startDashboardSession(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
  accountId: string,
  method: 'password' | 'sso',
  to = '/dashboard/forms',
): Promise<FastifyReply> {
  // A new session ID at every log-in: a planted cookie can never become an authenticated one.
  await app.services.sessions.endSession(request.cookies[SESSION_COOKIE]);
  const token = await app.services.sessions.startSession(user.id, accountId, { userAgent: request.headers['user-agent'], ip: request.ip, email: user.email, method });
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'lax',
    secure: app.config.baseUrl.startsWith('https:'),
    maxAge: SESSION_TTL_MS / 1000,
  });
  return reply.redirect(to, 303);
}

/** After joining a team: a notice naming it, on the first page the new member sees, in that team. */
export async function noticeJoined(app: FastifyInstance, reply: FastifyReply, accountId: string): Promise<void> {
  const account = await app.services.accounts.findAccount(accountId);
  setFlash(reply, { notice: `You joined the team ${account?.teamName ?? ''}: you are working in it now.` }, app.config.baseUrl.startsWith('https:'));
}
