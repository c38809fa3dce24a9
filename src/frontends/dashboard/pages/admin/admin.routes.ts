import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FIRST_ACCOUNT_PLAN } from '../../../../features/accounts/account.service.js';
import { planAllowsHooks, plans } from '../../../../features/accounts/account.types.js';
import { notFound, rethrowUnlessValidation } from '../../../../platform/errors.js';
import { pingDatabase } from '../../../../platform/db/health.repository.js';
import { VERSION } from '../../../../platform/version.js';
import { pageContext, sendPage, setFlash } from '../../page.js';
import type { ConfirmModel } from '../../views/confirm.views.js';

const accountParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } } as const;

/** The instance admin's page: accounts, sign-up, health. Anyone else gets a 404 (route-permissions.ts). */
export async function adminPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');
  const admin = app.services.admin;

  const health = async () => {
    const database = await pingDatabase(app.services.handle.db).then(() => 'ok', () => 'down');
    return {
      version: VERSION,
      database: `${database} (${app.services.handle.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'})`,
      redis: await app.limiter.redisState(),
      smtp: app.services.notifications.emailEnabled ? 'on (SMTP_URL is set)' : 'off (SMTP_URL is not set)',
      outboxBacklog: await app.services.outbox.countPending(),
      lastPurge: await admin.lastPurge(),
    };
  };

  const renderAdmin = async (request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const [accounts, signupMode, signupFromDatabase] = await Promise.all([admin.listAccounts(), admin.signupMode(), admin.signupSetInDatabase()]);
    const signupOpen = signupMode === 'open';
    const ctx = { ...pageContext(request, reply, 'Admin'), ...(error ? { error } : {}) };
    const planRules = { hookPlans: plans.filter(planAllowsHooks), defaultPlan: app.config.defaultPlan, firstAccountPlan: FIRST_ACCOUNT_PLAN };
    return sendPage(reply, 'admin', ctx, { accounts, plans, planRules, passwordLogin: app.config.passwordLogin, signupOpen, signupMode, signupFromDatabase, emailEnabled: app.services.notifications.emailEnabled, health: await health() }, status);
  };

  /** Runs an admin action; a refusal re-renders the page with its sentence. */
  const act = async (request: FastifyRequest, reply: FastifyReply, notice: string | (() => string), action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (err) {
      rethrowUnlessValidation(err);
      return renderAdmin(request, reply, err.message, 400);
    }
    setFlash(reply, { notice: typeof notice === 'function' ? notice() : notice }, secure);
    return reply.redirect('/dashboard/admin', 303);
  };

  const accountOf = async (id: string) => {
    const account = (await admin.listAccounts()).find((a) => a.id === id);
    if (!account) throw notFound('Account');
    return account;
  };

  app.get('/dashboard/admin', { schema: { hide: true } }, async (request, reply) => renderAdmin(request, reply));

  app.post<{ Body: { open?: string; mode?: string } }>('/dashboard/admin/signup', { schema: { hide: true } }, async (request, reply) => {
    if (request.body?.mode === 'invite') return act(request, reply, 'Sign-up is now by invitation only.', () => admin.setSignupMode('invite', request.owner!.id));
    const open = request.body?.open === '1';
    return act(request, reply, open ? 'Sign-up opened.' : 'Sign-up closed.', () => admin.setSignupOpen(open, request.owner!.id));
  });

  // Someone brought onto the instance by its admin: with a password given, at once; without one,
  // they choose it through the welcome's link (or sign in by single sign-on). Either way a
  // welcome tells them how to sign in, when email is on.
  app.post<{ Body: { email?: string; password?: string } }>('/dashboard/admin/accounts', { schema: { hide: true } }, async (request, reply) => {
    const email = typeof request.body?.email === 'string' ? request.body.email.trim() : '';
    // With single sign-on required, nobody signs in by password: none is set here.
    const password = app.config.passwordLogin && typeof request.body?.password === 'string' && request.body.password !== '' ? request.body.password : undefined;
    let notice = `${email} has an account now.`;
    return act(request, reply, () => notice, async () => {
      await admin.createAccount({ email, password });
      const welcomed = await app.services.passwordResets.sendWelcome(email);
      if (!app.config.passwordLogin) {
        notice = `${email} has an account now: they sign in by single sign-on${welcomed ? '; a welcome saying so is on its way to them' : ''}.`;
      } else if (!password && welcomed) {
        notice = `${email} has an account now; a welcome with a link to choose a password is on its way to them.`;
      } else if (!password) {
        notice = `${email} has an account now, with no password: they sign in by single sign-on, or you set one with the CLI.`;
      } else if (welcomed) {
        notice = `${email} has an account now; a welcome with how to sign in is on its way to them.`;
      }
    });
  });

  app.post<{ Params: { id: string }; Body: { plan?: string } }>('/dashboard/admin/accounts/:id/plan', { schema: { hide: true, params: accountParams } }, async (request, reply) => {
    const account = await accountOf(request.params.id);
    const plan = typeof request.body?.plan === 'string' ? request.body.plan : '';
    return act(request, reply, `${account.email} is now on ${plan}.`, () => admin.setPlan(account.id, plan));
  });

  app.post<{ Params: { id: string }; Body: { disabled?: string } }>('/dashboard/admin/accounts/:id/disable', { schema: { hide: true, params: accountParams } }, async (request, reply) => {
    const account = await accountOf(request.params.id);
    const disabled = request.body?.disabled === '1';
    return act(request, reply, disabled ? `${account.email} is disabled.` : `${account.email} is enabled again.`, async () => {
      await admin.setDisabled(request.owner!.id, account.id, disabled);
      // Whoever is logged in to it is logged out at once.
      if (disabled) await app.services.sessions.revokeOtherSessions(account.id, undefined);
    });
  });

  app.get<{ Params: { id: string } }>('/dashboard/admin/accounts/:id/delete', { schema: { hide: true, params: accountParams } }, async (request, reply) => {
    const account = await accountOf(request.params.id);
    const model: ConfirmModel = {
      heading: `Delete ${account.email}?`,
      question: `This deletes the account ${account.email} with its ${account.forms} form(s), ${account.submissions} submission(s), keys and hooks. It cannot be undone.`,
      action: `/dashboard/admin/accounts/${account.id}/delete`,
      confirmLabel: 'Delete account',
      back: '/dashboard/admin',
    };
    return sendPage(reply, 'confirm', pageContext(request, reply, 'Delete account'), { ...model });
  });

  app.post<{ Params: { id: string } }>('/dashboard/admin/accounts/:id/delete', { schema: { hide: true, params: accountParams } }, async (request, reply) => {
    const account = await accountOf(request.params.id);
    return act(request, reply, `${account.email} was deleted.`, () => admin.deleteAccount(request.owner!.id, account.id));
  });
}
