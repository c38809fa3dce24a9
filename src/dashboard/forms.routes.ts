import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { FormSettingsInput } from '../forms/form.service.js';
import type { Form } from '../forms/form.types.js';
import { pageContext, sendPage } from './page.js';

type SettingsBody = Record<string, string | undefined>;

const blankToNull = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.trim());

/** Turns the settings page's fields into form settings (unchecked boxes are absent). */
function settingsFromBody(body: SettingsBody): FormSettingsInput {
  const accessKey = body.requireAccessKey ? blankToNull(body.accessKey) : null;
  if (body.requireAccessKey && !accessKey) {
    throw new AppError('validation_failed', 'Enter the access key the form requires.', { fieldErrors: { accessKey: 'required' } });
  }
  return {
    name: body.name ?? '',
    isActive: body.isActive === '1',
    accessKey,
    requireBotCheck: body.requireBotCheck === '1',
    turnstileSecret: blankToNull(body.turnstileSecret),
    successUrl: blankToNull(body.successUrl),
    errorUrl: blankToNull(body.errorUrl),
    allowedRedirectHosts: (body.allowedRedirectHosts ?? '').split(/[\s,]+/).filter(Boolean),
  };
}

/** A copy-ready form posting to the submit URL, with the honeypot (and Turnstile when enabled). */
export function formSnippet(form: Form, submitUrl: string): string {
  const lines = [
    `<form action="${submitUrl}" method="POST">`,
    '  <label>Email <input type="email" name="email" required></label>',
    '  <label>Message <textarea name="message" required></textarea></label>',
    '  <!-- Honeypot: leave it empty and hidden; bots fill it in. -->',
    '  <input type="text" name="_honey" style="display:none" tabindex="-1" autocomplete="off">',
  ];
  if (form.accessKey) lines.push(`  <input type="hidden" name="access_key" value="${form.accessKey.replace(/[&"<>]/g, '')}">`);
  if (form.requireBotCheck) {
    lines.push('  <div class="cf-turnstile" data-sitekey="YOUR_TURNSTILE_SITE_KEY"></div>');
  }
  lines.push('  <button type="submit">Send</button>', '</form>');
  if (form.requireBotCheck) lines.push('<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>');
  return lines.join('\n');
}

export async function formPages(app: FastifyInstance): Promise<void> {
  // The notification settings on this page post to email.routes.ts.
  app.get('/dashboard/forms', { schema: { hide: true } }, async (request, reply) => {
    const forms = await app.services.forms.listForms(request.owner!.id);
    return sendPage(reply, 'forms', pageContext(request, reply, 'Forms'), { forms });
  });

  app.post<{ Body: { name: string } }>(
    '/dashboard/forms',
    { schema: { hide: true, body: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const form = await app.services.forms.createForm(request.owner!.id, { name: request.body.name });
      return reply.redirect(`/dashboard/forms/${form.id}/settings`, 303);
    },
  );

  const renderSettings = async (request: FastifyRequest, reply: FastifyReply, form: Form, extra: { notice?: string; error?: string } = {}, status = 200) => {
    const submitUrl = `${app.config.baseUrl}/v1/submit/${form.id}`;
    return sendPage(reply, 'settings', { ...pageContext(request, reply, form.name), ...extra }, {
      form,
      submitUrl,
      snippet: formSnippet(form, submitUrl),
      baseUrl: app.config.baseUrl,
      hasDefaultSecret: app.config.turnstileSecretKey !== undefined,
      notifications: {
        enabled: app.services.notifications.emailEnabled,
        recipients: await app.services.notifications.listRecipients(form.id),
      },
    }, status);
  };

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/settings', { schema: { hide: true } }, async (request, reply) =>
    renderSettings(request, reply, await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: SettingsBody }>('/dashboard/forms/:id/settings', { schema: { hide: true } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    try {
      const updated = await app.services.forms.updateForm(form.id, settingsFromBody(request.body ?? {}), request.owner!.id);
      return await renderSettings(request, reply, updated, { notice: 'Settings saved.' });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
      const detail = Object.entries(err.fieldErrors ?? {}).map(([f, m]) => `${f}: ${m}`).join('; ');
      return renderSettings(request, reply, form, { error: `${err.message} ${detail}` }, 400);
    }
  });
}
