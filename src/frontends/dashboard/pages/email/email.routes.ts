import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, rethrowUnlessValidation, validationFailed } from '../../../../platform/errors.js';
import { clientKey, rateLimited } from '../../../../platform/http/rate-limits.js';
import { notifyModes, type NotifyMode } from '../../../../features/forms/form.types.js';
import { renderSettingsPage } from '../forms/forms.routes.js';
import { pageContext, sendPage, setFlash } from '../../page.js';
import { SKIP_REASONS } from './email.views.js';

/** "Forgot password?" requests per client address per minute: nobody can mail-bomb an account. */
export const RESET_REQUESTS_PER_ADDRESS = 5;

const tokenParams = { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } } as const;

/**
 * Pages anyone may open: the recipient's verification link, and "Forgot password?" with its reset
 * link. The reset request answers the same whether or not the address has an account, and sends
 * in the background, so neither its text nor its timing tells.
 */
export async function emailPublicPages(app: FastifyInstance): Promise<void> {
  const message = (heading: string, text: string) => ({ heading, text });

  const linkNotValid = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(reply, 'message', pageContext(request, reply, 'Link not valid'), message('Link not valid', 'This confirmation link was already used or has expired.'), 404);

  // GET only shows the button: mail scanners open every link, and must not confirm the address.
  app.get<{ Params: { token: string } }>('/dashboard/verify-email/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    const recipient = await app.services.notifications.findRecipientOfToken(request.params.token);
    if (!recipient) return linkNotValid(request, reply);
    return sendPage(reply, 'confirmLink', pageContext(request, reply, 'Confirm this address'), {
      heading: 'Confirm this address',
      text: `Confirm that ${recipient.address} should receive a form's notifications from Formgate. If you did not expect this, close this page: nothing is sent to an address that is not confirmed.`,
      action: `/dashboard/verify-email/${request.params.token}`,
      button: `Confirm ${recipient.address}`,
    });
  });

  app.post<{ Params: { token: string } }>('/dashboard/verify-email/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    const recipient = await app.services.notifications.verifyRecipient(request.params.token);
    if (!recipient) return linkNotValid(request, reply);
    return sendPage(
      reply,
      'message',
      pageContext(request, reply, 'Address confirmed'),
      message('Address confirmed', `${recipient.address} is confirmed and will receive the form's notifications, including any that arrived while it waited.`),
    );
  });

  const changeLinkNotValid = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(reply, 'message', pageContext(request, reply, 'Link not valid'), message('Link not valid', 'This link was already used, replaced by a newer change or has expired. The account keeps its email.'), 404);

  // An account's new email: as above, the GET only shows the button.
  app.get<{ Params: { token: string } }>('/dashboard/confirm-email/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    const change = await app.services.emailChanges.findChangeOfToken(request.params.token);
    if (!change) return changeLinkNotValid(request, reply);
    return sendPage(reply, 'confirmLink', pageContext(request, reply, 'Confirm your new email'), {
      heading: 'Confirm your new email',
      text: `Confirm that ${change.newEmail} becomes the email of your Formgate account: you log in with it from then on.`,
      action: `/dashboard/confirm-email/${request.params.token}`,
      button: `Use ${change.newEmail}`,
    });
  });

  app.post<{ Params: { token: string } }>('/dashboard/confirm-email/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    const changed = await app.services.emailChanges.confirm(request.params.token);
    if (!changed) return changeLinkNotValid(request, reply);
    const text = `Your account's email is now ${changed.email}. Log in with it from now on.`;
    return sendPage(reply, 'message', pageContext(request, reply, 'Email changed'), { ...message('Email changed', text), ...(request.owner ? {} : { links: [{ href: '/dashboard/login', text: 'Log in' }] }) });
  });

  app.get('/dashboard/forgot-password', { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, 'forgotPassword', pageContext(request, reply, 'Forgot password?'), { enabled: app.services.notifications.emailEnabled }),
  );

  app.post<{ Body: { email: string } }>(
    '/dashboard/forgot-password',
    { schema: { hide: true, body: { type: 'object', required: ['email'], properties: { email: { type: 'string', maxLength: 254 }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const [attempts] = await app.limiter.hit({ key: `reset-ip:${clientKey(request.ip)}`, windowMs: 60_000 });
      if (attempts!.count > RESET_REQUESTS_PER_ADDRESS) throw rateLimited('Too many attempts. Wait a minute and try again.', attempts!.resetMs);
      void app.services.passwordResets.requestReset(request.body.email).catch((err: unknown) => request.log.error({ err }, 'queueing a password reset failed'));
      return sendPage(
        reply,
        'message',
        pageContext(request, reply, 'Check your email'),
        message('Check your email', 'If an account uses this address, a link to reset its password is on its way. It works once, within one hour.'),
      );
    },
  );

  app.post<{ Params: { token: string }; Body: { password: string } }>(
    '/dashboard/reset-password/:token',
    {
      schema: {
        hide: true,
        params: tokenParams,
        body: { type: 'object', required: ['password'], properties: { password: { type: 'string', maxLength: 1024 }, _csrf: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const done = await app.services.passwordResets.resetPassword(request.params.token, request.body.password);
      if (!done) {
        return sendPage(reply, 'message', pageContext(request, reply, 'Link not valid'), message('Link not valid', 'This reset link was already used or has expired. Ask for a new one.'), 404);
      }
      return sendPage(reply, 'message', pageContext(request, reply, 'Password changed'), message('Password changed', 'Your password is changed. Log in with the new one.'));
    },
  );

  app.get<{ Params: { token: string } }>('/dashboard/reset-password/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    if (!(await app.services.passwordResets.isLive(request.params.token))) {
      return sendPage(reply, 'message', pageContext(request, reply, 'Link not valid'), message('Link not valid', 'This reset link was already used or has expired. Ask for a new one.'), 404);
    }
    return sendPage(reply, 'resetPassword', pageContext(request, reply, 'Choose a new password'), { token: request.params.token });
  });
}

/** The notification fields' errors as sentences. */
function recipientMessage(field: string, text: string): string {
  if (field !== 'notify') return text;
  if (/^at most/.test(text)) return `Enter at most 5 addresses (${text.replace('at most ', '')} is the limit).`;
  const bad = /^"(.*)" is not an email address$/.exec(text);
  return bad ? `“${bad[1]}” is not an email address: enter addresses like name@example.com.` : text;
}

/** The test emails' results in a sentence: which addresses took it, and what the server said of the others. */
function testEmailText(results: Array<{ address: string; sent: boolean; reply: string }>): string {
  const sent = results.filter((r) => r.sent).map((r) => r.address);
  const refused = results.filter((r) => !r.sent).map((r) => `${r.address} (${r.reply})`);
  const parts = [
    ...(sent.length > 0 ? [`A test email was sent to ${sent.join(', ')}.`] : []),
    ...(refused.length > 0 ? [`The mail server did not take the one to ${refused.join(', ')}.`] : []),
  ];
  return `${parts.join(' ')} Each result is in the email log.`;
}

const formParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 }, recipientId: { type: 'string', maxLength: 100 } } } as const;

/** The owner's notification settings (posted from the form's settings page), test button and email log. */
export async function emailPages(app: FastifyInstance): Promise<void> {
  const notifications = app.services.notifications;
  const settingsUrl = (formId: string) => `/dashboard/forms/${formId}/settings#notifications`;

  app.post<{ Params: { id: string }; Body: { recipients?: string; notifyMode?: string } }>(
    '/dashboard/forms/:id/notifications',
    { schema: { hide: true, params: formParams } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
      if (!notifications.emailEnabled) throw new AppError('validation_failed', 'Email is off on this server (SMTP_URL is not set).');
      const body = request.body ?? {};
      const recipients = typeof body.recipients === 'string' ? body.recipients : '';
      const notifyMode = typeof body.notifyMode === 'string' ? body.notifyMode : undefined;
      try {
        if (notifyMode !== undefined && !(notifyModes as readonly string[]).includes(notifyMode)) {
          throw validationFailed('The notification settings are not valid.', { notifyMode: 'Choose one email per submission, an hourly or a daily digest' });
        }
        const addresses = recipients.split(/[\s,;]+/).filter(Boolean);
        await notifications.setRecipients(form.id, addresses, { verified: false, accountId });
        if (notifyMode !== undefined) await app.services.forms.updateForm(form.id, { notifyMode: notifyMode as NotifyMode }, accountId);
      } catch (err) {
        rethrowUnlessValidation(err);
        // The settings page again, with what was typed and the message by the field.
        const fieldErrors = Object.fromEntries(Object.entries(err.fieldErrors ?? {}).map(([field, text]) => [field === 'notify' ? 'recipients' : field, recipientMessage(field, text)]));
        return renderSettingsPage(app, request, reply, form, {
          error: 'The notification settings were not saved: see the message by the field.',
          values: { recipients, ...(notifyMode !== undefined ? { notifyMode } : {}) },
          fieldErrors,
        }, 400);
      }
      setFlash(reply, { notice: 'Notification settings saved.' }, app.config.baseUrl.startsWith('https:'));
      return reply.redirect(settingsUrl(form.id), 303);
    },
  );

  app.post<{ Params: { id: string; recipientId: string } }>(
    '/dashboard/forms/:id/notifications/:recipientId/verify',
    { schema: { hide: true, params: formParams } },
    async (request, reply) => {
      await notifications.resendVerification(request.owner!.id, request.params.id, request.params.recipientId);
      return reply.redirect(settingsUrl(request.params.id), 303);
    },
  );

  app.post<{ Params: { id: string } }>('/dashboard/forms/:id/notifications/test', { schema: { hide: true, params: formParams } }, async (request, reply) => {
    // Another account's form is not found, whatever the server's email setting.
    await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    if (!notifications.emailEnabled) throw new AppError('validation_failed', 'Email is off on this server (SMTP_URL is not set).');
    const results = await notifications.sendTestEmails(request.owner!.id, request.params.id);
    const text = results.length > 0 ? testEmailText(results) : 'No confirmed address to send to yet.';
    return sendPage(reply, 'message', pageContext(request, reply, 'Test email'), { heading: 'Test email', text }, results.length > 0 ? 200 : 400);
  });

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/email-log', { schema: { hide: true, params: formParams } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    const entries = await notifications.emailLog(request.owner!.id, form.id);
    return sendPage(reply, 'emailLog', pageContext(request, reply, `${form.name}: email log`), { form, entries, enabled: notifications.emailEnabled, skipReasons: SKIP_REASONS });
  });
}
