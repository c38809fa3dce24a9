import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, rethrowUnlessValidation } from '../../../../platform/errors.js';
import { clientKey, rateLimited } from '../../../../platform/http/rate-limits.js';
import type { Invitation } from '../../../../features/members/member.types.js';
import { SIGNUPS_PER_ADDRESS, signInChoices } from '../auth/auth.routes.js';
import { SESSION_COOKIE, pageContext, sendPage } from '../../page.js';
import { noticeJoined, startDashboardSession } from '../../session-cookie.js';

type Values = Record<string, string>;
const tokenParams = { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } } as const;
const signupBody = {
  type: 'object',
  properties: { displayName: { type: 'string', maxLength: 10000 }, password: { type: 'string', maxLength: 1024 }, _csrf: { type: 'string' } },
} as const;

const STATE_TEXT: Record<Exclude<Invitation['state'], 'pending'>, string> = {
  accepted: 'This invitation was used already. Each invitation link works once.',
  revoked: 'This invitation was revoked. Ask the account\'s owner or an admin for a new one.',
  expired: 'This invitation expired (links work for 7 days). Ask the account\'s owner or an admin for a new one.',
};

/**
 * An invitation's link: accepted by a signed-in user with the invited address, by a sign-up with
 * it (also when sign-up is `invite`), or by the page's single sign-on button, whose trip to the
 * provider must come back with that address verified (sso.routes.ts).
 */
export async function invitePages(app: FastifyInstance): Promise<void> {
  const members = app.services.members;

  const render = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply, extra: { values?: Values; fieldErrors?: Record<string, string>; error?: string } = {}, status = 200) => {
    const invitation = await members.findInvitationByToken(request.params.token);
    const ctx = { ...pageContext(request, reply, 'Invitation'), ...(extra.error ? { error: extra.error } : {}) };
    if (!invitation || invitation.state !== 'pending') {
      const text = invitation ? STATE_TEXT[invitation.state as keyof typeof STATE_TEXT] : 'This invitation link is not valid. Check that it was copied whole.';
      return sendPage(reply, 'invite', ctx, { heading: 'This invitation cannot be used', text }, invitation ? 410 : 404);
    }
    const account = await app.services.accounts.findAccount(invitation.accountId);
    return sendPage(reply, 'invite', ctx, {
      heading: 'Join an account on Formgate',
      invitation,
      token: request.params.token,
      teamName: account?.teamName ?? '',
      inviter: await members.findInviter(invitation.id),
      signedInAs: request.user?.email,
      signupAllowed: app.config.passwordLogin && (await app.services.admin.signupMode()) !== 'closed',
      sso: signInChoices(app).sso,
      values: extra.values ?? {},
      fieldErrors: extra.fieldErrors ?? {},
    }, status);
  };

  app.get<{ Params: { token: string } }>('/dashboard/invite/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => render(request, reply));

  app.post<{ Params: { token: string } }>('/dashboard/invite/:token/accept', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    if (!request.user) return reply.redirect(`/dashboard/invite/${encodeURIComponent(request.params.token)}`, 303);
    try {
      const accountId = await members.accept(request.params.token, request.user);
      await app.services.sessions.switchAccount(request.cookies[SESSION_COOKIE]!, accountId);
      await noticeJoined(app, reply, accountId);
      return reply.redirect('/dashboard/forms', 303);
    } catch (err) {
      if (err instanceof AppError && err.code === 'access_denied') return render(request, reply, { error: err.message }, 403);
      rethrowUnlessValidation(err);
      return render(request, reply, { error: err.message }, 400);
    }
  });

  app.post<{ Params: { token: string }; Body: Values }>('/dashboard/invite/:token/signup', { schema: { hide: true, params: tokenParams, body: signupBody } }, async (request, reply) => {
    const [attempts] = await app.limiter.hit({ key: `signup-ip:${clientKey(request.ip)}`, windowMs: 60_000 });
    if (attempts!.count > SIGNUPS_PER_ADDRESS) throw rateLimited('Too many attempts. Wait a minute and try again.', attempts!.resetMs);
    if (!app.config.passwordLogin || (await app.services.admin.signupMode()) === 'closed') {
      throw new AppError('not_found', 'Sign-up is closed on this server: ask the account\'s owner to add your existing login.');
    }
    const invitation = await members.findInvitationByToken(request.params.token);
    if (!invitation || invitation.state !== 'pending') return render(request, reply);
    const values = { displayName: request.body.displayName ?? '' };
    let user;
    try {
      user = await app.services.accounts.createUser({ email: invitation.email, displayName: request.body.displayName?.trim() || undefined, password: request.body.password ?? '' });
    } catch (err) {
      rethrowUnlessValidation(err);
      const fieldErrors: Record<string, string> = err.fieldErrors?.email === 'already registered' ? {} : { password: 'Use a password of 8 to 1024 characters.' };
      const error = err.fieldErrors?.email === 'already registered' ? `There is a login for ${invitation.email} already: log in, then open this link again.` : 'Your login was not created: see the message by the field.';
      return render(request, reply, { values, fieldErrors, error }, 400);
    }
    const accountId = await members.accept(request.params.token, user);
    await noticeJoined(app, reply, accountId);
    return startDashboardSession(app, request, reply, user, accountId, 'password');
  });
}
