import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rethrowUnlessValidation } from '../../../../platform/errors.js';
import { GRANTABLE_ROLES } from '../../../../features/members/member.types.js';
import { roleMay } from '../../../../features/members/permissions.js';
import { pageContext, sendPage, setFlash } from '../../page.js';
import type { ConfirmModel } from '../../views/confirm.views.js';

type Values = Record<string, string>;

const bodySchema = (fields: string[]) =>
  ({
    type: 'object',
    properties: Object.fromEntries([...fields.map((f) => [f, { type: 'string', maxLength: 1024 }]), ['_csrf', { type: 'string' }]]),
  }) as const;
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } } as const;

/** The Members page: who belongs to the account with which role, invitations, leaving and handing over. */
export async function memberPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');
  const members = app.services.members;

  const render = async (request: FastifyRequest, reply: FastifyReply, extra: { values?: Values; fieldErrors?: Record<string, string>; error?: string } = {}, status = 200) => {
    const accountId = request.owner!.id;
    const canManage = roleMay(request.role, 'members.manage');
    const [list, invitations] = await Promise.all([members.listMembers(accountId), canManage ? members.listInvitations(accountId) : []]);
    const ctx = { ...pageContext(request, reply, 'Members'), ...(extra.error ? { error: extra.error } : {}) };
    return sendPage(reply, 'members', ctx, {
      members: list,
      invitations,
      canManage,
      grantable: GRANTABLE_ROLES,
      userId: request.user!.id,
      values: extra.values ?? {},
      fieldErrors: extra.fieldErrors ?? {},
    }, status);
  };

  const done = (reply: FastifyReply, notice: string, to = '/dashboard/members') => {
    setFlash(reply, { notice }, secure);
    return reply.redirect(to, 303);
  };

  /** Removing, leaving and handing over cannot be taken back by whoever does them: a page says what follows, and asks. */
  const askFirst = (request: FastifyRequest, reply: FastifyReply, model: ConfirmModel) => sendPage(reply, 'confirm', pageContext(request, reply, model.heading), { ...model });

  app.get('/dashboard/members', { schema: { hide: true } }, async (request, reply) => render(request, reply));

  app.post<{ Body: Values }>('/dashboard/members/team-name', { schema: { hide: true, body: bodySchema(['teamName']) } }, async (request, reply) => {
    try {
      const account = await app.services.accounts.setTeamName(request.owner!.id, request.body.teamName ?? '');
      return done(reply, `The team is named ${account.teamName}.`);
    } catch (err) {
      rethrowUnlessValidation(err);
      return render(request, reply, { values: { teamName: request.body.teamName ?? '' }, fieldErrors: { teamName: 'Use at most 100 characters, on one line.' }, error: 'The name was not saved.' }, 400);
    }
  });

  // The link rides a one-time flash (only its hash is stored): shown once, to copy.
  app.post<{ Body: Values }>('/dashboard/members/invitations', { schema: { hide: true, body: bodySchema(['email', 'role']) } }, async (request, reply) => {
    try {
      const issued = await members.invite(request.owner!.id, { email: request.body.email ?? '', role: request.body.role ?? 'member', invitedBy: request.user!.id });
      const notice = issued.emailed ? `Invitation sent to ${issued.invitation.email}.` : `Invitation made for ${issued.invitation.email}: copy the link below and send it to them.`;
      setFlash(reply, { notice, secret: issued.url, secretLabel: 'invitation link' }, secure);
      return reply.redirect('/dashboard/members', 303);
    } catch (err) {
      rethrowUnlessValidation(err);
      return render(request, reply, { values: { email: request.body.email ?? '', role: request.body.role ?? '' }, fieldErrors: err.fieldErrors ?? {}, error: err.message }, 400);
    }
  });

  app.post<{ Params: { id: string } }>('/dashboard/members/invitations/:id/revoke', { schema: { hide: true, params: idParams } }, async (request, reply) => {
    await members.revokeInvitation(request.owner!.id, request.params.id, request.user!.id);
    return done(reply, 'The invitation was revoked: its link no longer works.');
  });

  app.post<{ Params: { id: string }; Body: Values }>('/dashboard/members/:id/role', { schema: { hide: true, params: idParams, body: bodySchema(['role']) } }, async (request, reply) => {
    try {
      const member = await members.setRole(request.owner!.id, { userId: request.params.id }, request.body.role ?? '', request.user!.id);
      return done(reply, `${member.email} is now ${member.role}.`);
    } catch (err) {
      rethrowUnlessValidation(err);
      return render(request, reply, { error: err.message }, 400);
    }
  });

  app.post<{ Params: { id: string }; Body: Values }>('/dashboard/members/:id/remove', { schema: { hide: true, params: idParams, body: bodySchema(['confirm']) } }, async (request, reply) => {
    if (request.body?.confirm !== '1') {
      const target = (await members.listMembers(request.owner!.id)).find((m) => m.userId === request.params.id);
      if (!target) return render(request, reply, { error: 'That person is not a member of this account.' }, 404);
      return askFirst(request, reply, {
        heading: `Remove ${target.email}?`,
        question: `${target.email} loses access to this account's forms and submissions at once; their open sessions leave it on their next request. Only a new invitation brings them back.`,
        action: `/dashboard/members/${encodeURIComponent(target.userId)}/remove`,
        confirmLabel: 'Remove member',
        back: '/dashboard/members',
      });
    }
    const member = await members.remove(request.owner!.id, { userId: request.params.id }, request.user!.id);
    return done(reply, `${member.email} was removed from the account.`);
  });

  app.post<{ Body: Values }>('/dashboard/members/leave', { schema: { hide: true, body: bodySchema(['confirm']) } }, async (request, reply) => {
    if (request.body?.confirm !== '1') {
      return askFirst(request, reply, {
        heading: 'Leave this account?',
        question: `You lose access to the forms and submissions of ${request.owner!.email}'s account at once. Only a new invitation from its owner or an admin brings you back.`,
        action: '/dashboard/members/leave',
        confirmLabel: 'Leave account',
        back: '/dashboard/members',
      });
    }
    await members.leave(request.owner!.id, request.user!.id);
    // The next request finds the session's account gone and moves to another of the user's, or to the log-in page.
    return done(reply, 'You left the account.', '/dashboard/forms');
  });

  app.post<{ Body: Values }>('/dashboard/members/transfer', { schema: { hide: true, body: bodySchema(['email', 'confirm']) } }, async (request, reply) => {
    try {
      if (request.body.confirm !== '1') {
        const email = (request.body.email ?? '').trim().toLowerCase();
        const target = (await members.listMembers(request.owner!.id)).find((m) => m.email === email);
        if (!target) return render(request, reply, { values: { email }, fieldErrors: { email: 'Choose a member of this account' }, error: `${email || 'That address'} is not a member of this account.` }, 400);
        return askFirst(request, reply, {
          heading: `Hand this account to ${target.email}?`,
          question: `${target.email} becomes its owner: they alone may delete it or hand it on. You become an admin, and only the new owner can hand it back to you. The instance's Admin page stays with whoever has it.`,
          action: '/dashboard/members/transfer',
          confirmLabel: 'Hand over ownership',
          back: '/dashboard/members',
          hidden: { email: target.email },
        });
      }
      const member = await members.transferOwnership(request.owner!.id, request.user!.id, request.body.email ?? '');
      return done(reply, `${member.email} owns the account now; you are an admin.`);
    } catch (err) {
      rethrowUnlessValidation(err);
      return render(request, reply, { error: err.message }, 400);
    }
  });
}
