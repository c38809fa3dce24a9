import type { FastifyInstance } from 'fastify';
import { SESSION_COOKIE, pageContext, sendPage } from '../../page.js';
import { landingPageOf, noticeJoined } from '../../session-cookie.js';

const acceptParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } } as const;

/**
 * The invitations waiting for the signed-in user's address, shown after sign-in while any wait.
 * Each joins its account only by its own POST; an address nothing confirmed sees none here (the
 * invitation's emailed link is the way for it).
 */
export async function waitingInvitationPages(app: FastifyInstance): Promise<void> {
  app.get('/dashboard/invitations', { schema: { hide: true } }, async (request, reply) => {
    const user = request.user!;
    const confirmed = await app.services.accounts.isEmailConfirmed(user.id);
    const invitations = confirmed ? await app.services.members.listWaitingFor(user) : [];
    return sendPage(reply, 'invitations', pageContext(request, reply, 'Invitations'), { email: user.email, invitations, signedIn: true, confirmed });
  });

  app.post<{ Params: { id: string } }>('/dashboard/invitations/:id/accept', { schema: { hide: true, params: acceptParams } }, async (request, reply) => {
    const accountId = await app.services.members.acceptWaiting(request.params.id, request.user!);
    await app.services.sessions.switchAccount(request.cookies[SESSION_COOKIE]!, accountId);
    await noticeJoined(app, reply, accountId);
    return reply.redirect(await landingPageOf(app, request.user!), 303);
  });
}
