import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, rethrowUnlessValidation } from '../../../../platform/errors.js';
import { SESSION_COOKIE, pageContext, sendPage, setFlash } from '../../page.js';
import { FRESH_SIGN_ON_MS } from '../../../../features/accounts/account.service.js';
import { linkIntentOf, reauthIntentOf, startSsoTrip } from '../sso/sso.routes.js';
import type { ConfirmModel } from '../../views/confirm.views.js';

type Values = Record<string, string>;

const bodySchema = (fields: string[]) =>
  ({
    type: 'object',
    properties: Object.fromEntries([...fields.map((f) => [f, { type: 'string', maxLength: 1024 }]), ['_csrf', { type: 'string' }]]),
  }) as const;

/** Fields that never go back into the page: passwords are typed again. */
const withoutPasswords = (body: Values): Values =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !/password/i.test(k) && k !== '_csrf'));

export async function accountPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');

  const renderAccount = async (request: FastifyRequest, reply: FastifyReply, extra: { values?: Values; fieldErrors?: Record<string, string>; error?: string } = {}, status = 200) => {
    const user = (await app.services.accounts.findUser(request.user!.id)) ?? request.user!;
    const sessions = await app.services.sessions.listSessions(user.id, request.cookies[SESSION_COOKIE]);
    const pendingEmail = await app.services.emailChanges.findPending(user.id);
    const waitingInvitations = (await app.services.members.listWaitingFor(user)).length;
    const sso = app.services.sso.enabled
      ? { displayName: app.config.oidc!.displayName, identities: await app.services.sso.listIdentities(user.id), canLink: await app.services.accounts.hasPassword(user.id) }
      : undefined;
    const ctx = { ...pageContext(request, reply, 'Account'), ...(extra.error ? { error: extra.error } : {}) };
    // The page's "account" is the signed-in person; the owner alone sees the account's deletion.
    const account = { ...request.owner!, email: user.email, displayName: user.displayName };
    const hasPassword = await app.services.accounts.hasPassword(user.id);
    // A user without a password proves themselves by a fresh sign-on; the page says whether this one is.
    const freshSignOn = request.signedOnAt !== null && Date.now() - Date.parse(request.signedOnAt) <= FRESH_SIGN_ON_MS;
    const canChangePassword = hasPassword && app.config.passwordLogin;
    const model = { account, sessions, pendingEmail, waitingInvitations, sso, hasPassword, canChangePassword, freshSignOn, role: request.role, values: extra.values ?? {}, fieldErrors: extra.fieldErrors ?? {} };
    return sendPage(reply, 'account', ctx, model, status);
  };

  /** The password typed, or for a user without one, the session's last single sign-on. */
  const proofOf = (request: FastifyRequest<{ Body: Values }>) => ({ password: request.body?.currentPassword ?? '', signedOnAt: request.signedOnAt });

  /** Runs a change; a validation error re-renders the page with what was typed and the message by its field. */
  const change = async (request: FastifyRequest<{ Body: Values }>, reply: FastifyReply, notice: string | (() => string), action: () => Promise<unknown>, redirectTo = '/dashboard/account') => {
    try {
      await action();
    } catch (err) {
      rethrowUnlessValidation(err);
      return renderAccount(request, reply, { values: withoutPasswords(request.body ?? {}), fieldErrors: err.fieldErrors ?? {}, error: err.message }, 400);
    }
    setFlash(reply, { notice: typeof notice === 'function' ? notice() : notice }, secure);
    return reply.redirect(redirectTo, 303);
  };

  app.get('/dashboard/account', { schema: { hide: true } }, async (request, reply) => renderAccount(request, reply));

  app.post<{ Body: Values }>('/dashboard/account', { schema: { hide: true, body: bodySchema(['displayName']) } }, async (request, reply) =>
    change(request, reply, 'Saved.', () => app.services.accounts.setDisplayName(request.user!.id, request.body.displayName ?? '')),
  );

  // The new address confirms a link before the email changes; the old one is told at once.
  app.post<{ Body: Values }>('/dashboard/account/email', { schema: { hide: true, body: bodySchema(['email', 'currentPassword']) } }, async (request, reply) => {
    let notice = 'Email changed.';
    return change(request, reply, () => notice, async () => {
      const result = await app.services.emailChanges.requestChange(request.user!.id, request.body.email ?? '', proofOf(request));
      if (!result.changed) {
        notice = `A link to confirm is on its way to ${result.pending.newEmail} (valid 24 hours). Your email stays ${result.oldEmail} until it is confirmed; ${result.oldEmail} was told about the change.`;
      }
    });
  });

  app.post('/dashboard/account/email/cancel', { schema: { hide: true } }, async (request, reply) => {
    await app.services.emailChanges.cancel(request.user!.id);
    setFlash(reply, { notice: 'The email change was cancelled: its link no longer works.' }, secure);
    return reply.redirect('/dashboard/account', 303);
  });

  // A new password ends every other session: whoever knew the old one is logged out.
  app.post<{ Body: Values }>('/dashboard/account/password', { schema: { hide: true, body: bodySchema(['currentPassword', 'newPassword']) } }, async (request, reply) =>
    change(request, reply, 'Password changed. Every other session was logged out.', async () => {
      await app.services.accounts.changePassword(request.user!.id, request.body.currentPassword ?? '', request.body.newPassword ?? '');
      await app.services.sessions.revokeOtherSessions(request.user!.id, request.cookies[SESSION_COOKIE]);
    }),
  );

  app.post<{ Params: { id: string } }>('/dashboard/account/sessions/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
    await app.services.sessions.revokeSession(request.user!.id, request.params.id);
    setFlash(reply, { notice: 'That session is logged out.' }, secure);
    return reply.redirect('/dashboard/account', 303);
  });

  // Linking single sign-on asks for the password first: a borrowed session alone must not add a
  // way in that outlives it. The provider's sign-in then proves the other side.
  app.post<{ Body: Values }>('/dashboard/account/sso', { schema: { hide: true, body: bodySchema(['currentPassword']) } }, async (request, reply) => {
    if (!app.services.sso.enabled) throw new AppError('not_found', 'Single sign-on is not set up on this server.');
    try {
      await app.services.accounts.checkCurrentPassword(request.user!.id, request.body.currentPassword ?? '', 'ssoPassword');
    } catch (err) {
      rethrowUnlessValidation(err);
      return renderAccount(request, reply, { fieldErrors: err.fieldErrors ?? {}, error: err.message }, 400);
    }
    return startSsoTrip(app, request, reply, linkIntentOf(request));
  });

  // A user without a password confirms at the provider what a password user confirms by typing it.
  app.post('/dashboard/account/reauth', { schema: { hide: true } }, async (request, reply) => startSsoTrip(app, request, reply, reauthIntentOf(request)));

  app.post('/dashboard/account/sessions/revoke-others', { schema: { hide: true } }, async (request, reply) => {
    const n = await app.services.sessions.revokeOtherSessions(request.user!.id, request.cookies[SESSION_COOKIE]);
    setFlash(reply, { notice: `Logged out ${n} other session${n === 1 ? '' : 's'}.` }, secure);
    return reply.redirect('/dashboard/account', 303);
  });

  // Erasure (docs/spam-and-privacy.md): every submission of the account's forms with a field equal to the address.
  // The first post previews how many submissions match; only the confirmed one deletes.
  app.post<{ Body: Values }>('/dashboard/account/erase', { schema: { hide: true, body: bodySchema(['email', 'confirm']) } }, async (request, reply) => {
    const email = (request.body?.email ?? '').trim();
    let deleted: number;
    try {
      if (request.body?.confirm !== '1') {
        const count = await app.services.lifecycle.countByEmail(request.owner!.id, email);
        const model: ConfirmModel = count === 0
          ? { heading: 'Nothing to erase', question: `No submission of your forms has a field equal to ${email}.`, action: '/dashboard/account', back: '/dashboard/account' }
          : {
              heading: `Erase ${count} submission${count === 1 ? '' : 's'}?`,
              question: `${count} submission${count === 1 ? ' has' : 's have'} a field equal to ${email}. Erasing deletes ${count === 1 ? 'it' : 'them'} with anything still queued for ${count === 1 ? 'it' : 'them'}. This cannot be undone.`,
              action: '/dashboard/account/erase',
              confirmLabel: `Erase ${count} submission${count === 1 ? '' : 's'}`,
              back: '/dashboard/account',
              hidden: { email },
            };
        return sendPage(reply, 'confirm', pageContext(request, reply, 'Erase a person\'s data'), { ...model });
      }
      ({ deleted } = await app.services.lifecycle.eraseByEmail(request.owner!.id, email));
    } catch (err) {
      rethrowUnlessValidation(err);
      return renderAccount(request, reply, { values: withoutPasswords(request.body ?? {}), fieldErrors: { email: 'Enter an email address like name@example.com.' }, error: 'Nothing was erased: see the message by the field.' }, 400);
    }
    setFlash(reply, { notice: `${deleted} submission(s) with ${email.trim()} erased.` }, secure);
    return reply.redirect('/dashboard/account', 303);
  });

  // The account switcher in the header: the session acts in another of the user's accounts.
  app.post<{ Body: Values }>('/dashboard/account/switch', { schema: { hide: true, body: bodySchema(['accountId']) } }, async (request, reply) => {
    await app.services.sessions.switchAccount(request.cookies[SESSION_COOKIE]!, request.body.accountId ?? '');
    return reply.redirect('/dashboard/forms', 303);
  });

  app.post<{ Body: Values }>('/dashboard/account/delete', { schema: { hide: true, body: bodySchema(['confirmEmail', 'currentPassword']) } }, async (request, reply) => {
    try {
      await app.services.accounts.deleteAccount(request.owner!.id, request.user!.id, request.body.confirmEmail ?? '', proofOf(request));
    } catch (err) {
      rethrowUnlessValidation(err);
      return renderAccount(request, reply, { values: withoutPasswords(request.body ?? {}), fieldErrors: err.fieldErrors ?? {}, error: err.message }, 400);
    }
    // Its audit log went with it, and no other account is the place for the event: the server log keeps it.
    request.log.info({ accountId: request.owner!.id, userId: request.user!.id }, 'account deleted by its owner');
    reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    setFlash(reply, { notice: 'Your account and everything in it were deleted.' }, secure);
    return reply.redirect('/dashboard/login', 303);
  });
}
