import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_TTL_MS } from '../accounts/session.service.js';
import { SESSION_COOKIE } from './page.js';

/** Signs the browser in to an account (after a password or single sign-on) and opens its forms. */
export async function startDashboardSession(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  account: { id: string; email: string },
  method: 'password' | 'sso',
): Promise<FastifyReply> {
  // A new session ID at every log-in: a planted cookie can never become an authenticated one.
  await app.services.sessions.endSession(request.cookies[SESSION_COOKIE]);
  const token = await app.services.sessions.startSession(account.id, { userAgent: request.headers['user-agent'], ip: request.ip, email: account.email, method });
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'lax',
    secure: app.config.baseUrl.startsWith('https:'),
    maxAge: SESSION_TTL_MS / 1000,
  });
  return reply.redirect('/dashboard/forms', 303);
}
