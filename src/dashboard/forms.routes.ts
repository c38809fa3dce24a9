import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { FormSettingsInput } from '../forms/form.service.js';
import type { Form } from '../forms/form.types.js';
import { pageContext, sendPage } from './page.js';

type SettingsBody = Record<string, string | undefined>;

const blankToNull = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.trim());

const SPAM_AND_PRIVACY_FIELDS = ['turnstileSiteKey', 'blockedTerms', 'blockedEmails', 'allowedOrigins', 'maxLinks', 'retentionDays', 'storeIp'];

/** Turns the settings page's fields into form settings (unchecked boxes are absent). */
function settingsFromBody(body: SettingsBody): FormSettingsInput {
  // A field sent twice (or not as text) is a field error, never a crash.
  const repeated = SPAM_AND_PRIVACY_FIELDS.filter((name) => body[name] !== undefined && typeof body[name] !== 'string');
  if (repeated.length > 0) {
    throw new AppError('validation_failed', 'Each setting must be sent once.', {
      fieldErrors: Object.fromEntries(repeated.map((name) => [name, 'must be sent once, as text'])),
    });
  }
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
    turnstileSiteKey: blankToNull(body.turnstileSiteKey),
    blockedTerms: lines(body.blockedTerms),
    blockedEmails: lines(body.blockedEmails).flatMap((line) => line.split(/[\s,;]+/)).filter(Boolean),
    allowedOrigins: (body.allowedOrigins ?? '').split(/[\s,]+/).filter(Boolean),
    maxLinks: wholeNumberOrNull(body.maxLinks),
    retentionDays: wholeNumberOrNull(body.retentionDays),
    storeIp: (body.storeIp ?? 'full') as 'full' | 'none',
  };
}

/** One entry per non-empty line. */
const lines = (value: string | undefined) => (value ?? '').split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
/** Empty means "none"; anything else that is not digits is passed on for the service to name the field. */
const wholeNumberOrNull = (value: string | undefined) => {
  const text = (value ?? '').trim();
  return text === '' ? null : /^\d+$/.test(text) ? Number(text) : (text as unknown as number);
};

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
    // The site key is limited to [A-Za-z0-9_-] by the form settings, so it needs no escaping.
    lines.push(`  <div class="cf-turnstile" data-sitekey="${form.turnstileSiteKey ?? 'YOUR_TURNSTILE_SITE_KEY'}"></div>`);
  }
  lines.push('  <button type="submit">Send</button>', '</form>');
  if (form.requireBotCheck) lines.push('<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>');
  return lines.join('\n');
}

export async function formPages(app: FastifyInstance): Promise<void> {
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

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    const count = await app.services.submissionQueries.countSubmissions(request.owner!.id, form.id);
    return sendPage(reply, 'deleteForm', pageContext(request, reply, `Delete ${form.name}`), { form, count });
  });

  app.post<{ Params: { id: string }; Body: { confirmName?: unknown } }>('/dashboard/forms/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    if (typeof request.body?.confirmName !== 'string' || request.body.confirmName.trim() !== form.name) {
      const count = await app.services.submissionQueries.countSubmissions(request.owner!.id, form.id);
      return sendPage(
        reply,
        'deleteForm',
        { ...pageContext(request, reply, `Delete ${form.name}`), error: `Type the form's name, “${form.name}”, to delete it.` },
        { form, count },
        400,
      );
    }
    await app.services.lifecycle.deleteForm(form.id, request.owner!.id);
    const forms = await app.services.forms.listForms(request.owner!.id);
    return sendPage(reply, 'forms', { ...pageContext(request, reply, 'Forms'), notice: `Form “${form.name}” deleted.` }, { forms });
  });
}
