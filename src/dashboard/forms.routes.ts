import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rethrowUnlessValidation } from '../errors.js';
import type { FormSettingsInput } from '../forms/form.service.js';
import type { Form } from '../forms/form.types.js';
import { pageContext, sendPage, setFlash } from './page.js';
import { altchaUrls } from '../bot-checks/altcha-widget.js';
import { formSnippet, reactSnippet } from './views/snippets.js';

type SettingsBody = Record<string, unknown>;

const TEXT_FIELDS = [
  'name', 'accessKey', 'turnstileSecret', 'successUrl', 'errorUrl', 'allowedRedirectHosts',
  'turnstileSiteKey', 'blockedTerms', 'blockedEmails', 'allowedOrigins', 'maxLinks', 'retentionDays', 'storeIp',
  'botCheck', 'hcaptchaSecret', 'hcaptchaSiteKey', 'recaptchaSecret', 'recaptchaSiteKey', 'recaptchaMinScore',
  'altchaComplexity', 'minFillSeconds', 'spamFilter',
] as const;
const CHECKBOXES = ['isActive', 'requireAccessKey'] as const;

const blankToNull = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.trim());

/** Words for the settings fields' errors, whatever the service called them. */
const fieldMessages: Record<string, string> = {
  name: 'Enter a name for the form (up to 200 characters)',
  accessKey: 'Enter an access key',
  successUrl: 'Enter a full address starting with https:// or http://',
  errorUrl: 'Enter a full address starting with https:// or http://',
  allowedRedirectHosts: 'Enter host names separated by commas, like shop.example.com',
  turnstileSecret: 'Enter the Turnstile secret (or set TURNSTILE_SECRET_KEY)',
  hcaptchaSecret: 'Enter the hCaptcha secret (or set HCAPTCHA_SECRET_KEY)',
  recaptchaSecret: 'Enter the reCAPTCHA secret (or set RECAPTCHA_SECRET_KEY)',
  recaptchaMinScore: 'Enter a number from 0 to 1, like 0.5',
  minFillSeconds: 'Enter a whole number of seconds from 0 to 60',
};

/**
 * Turns the settings page's fields into form settings (unchecked boxes are absent). A field sent
 * twice or as something other than text (a crafted request) is a field error, never a crash; a
 * box sent twice is still checked.
 */
function settingsFromBody(body: SettingsBody): { input: FormSettingsInput; text: Record<string, string>; boxes: Record<string, string>; fieldErrors: Record<string, string> } {
  const fieldErrors: Record<string, string> = {};
  const text: Record<string, string> = {};
  for (const field of TEXT_FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value === 'string') text[field] = value;
    else fieldErrors[field] = Array.isArray(value) ? 'Enter one value only' : 'Enter text';
  }
  const checked = (field: (typeof CHECKBOXES)[number]) => {
    const value = body[field];
    return value === '1' || value === 'on' || value === true || (Array.isArray(value) && value.some((v) => v === '1' || v === 'on'));
  };
  const accessKey = checked('requireAccessKey') ? blankToNull(text.accessKey) : null;
  if (checked('requireAccessKey') && !accessKey && !fieldErrors.accessKey) fieldErrors.accessKey = 'Enter an access key';
  if ((text.name ?? '').trim() === '' && !fieldErrors.name) fieldErrors.name = 'Enter a name for the form';
  return {
    text,
    fieldErrors,
    boxes: Object.fromEntries(CHECKBOXES.map((f) => [f, checked(f) ? '1' : ''])),
    input: {
      name: text.name ?? '',
      isActive: checked('isActive'),
      accessKey,
      botCheck: (text.botCheck ?? 'none') as FormSettingsInput['botCheck'],
      turnstileSecret: blankToNull(text.turnstileSecret),
      hcaptchaSecret: blankToNull(text.hcaptchaSecret),
      hcaptchaSiteKey: blankToNull(text.hcaptchaSiteKey),
      recaptchaSecret: blankToNull(text.recaptchaSecret),
      recaptchaSiteKey: blankToNull(text.recaptchaSiteKey),
      // Empty keeps what is set; anything that is not a number is passed on for the service to name the field.
      ...((text.recaptchaMinScore ?? '').trim() === '' ? {} : { recaptchaMinScore: decimal(text.recaptchaMinScore!) }),
      altchaComplexity: (text.altchaComplexity ?? 'medium') as FormSettingsInput['altchaComplexity'],
      minFillSeconds: wholeNumberOrNull(text.minFillSeconds) ?? 0,
      spamFilter: (text.spamFilter ?? 'off') as FormSettingsInput['spamFilter'],
      successUrl: blankToNull(text.successUrl),
      errorUrl: blankToNull(text.errorUrl),
      allowedRedirectHosts: (text.allowedRedirectHosts ?? '').split(/[\s,]+/).filter(Boolean),
      turnstileSiteKey: blankToNull(text.turnstileSiteKey),
      blockedTerms: lines(text.blockedTerms),
      blockedEmails: lines(text.blockedEmails).flatMap((line) => line.split(/[\s,;]+/)).filter(Boolean),
      allowedOrigins: (text.allowedOrigins ?? '').split(/[\s,]+/).filter(Boolean),
      maxLinks: wholeNumberOrNull(text.maxLinks),
      retentionDays: wholeNumberOrNull(text.retentionDays),
      storeIp: (text.storeIp ?? 'full') as 'full' | 'none',
    },
  };
}

const decimal = (value: string) => (/^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : (value as unknown as number));
/** One entry per non-empty line. */
const lines = (value: string | undefined) => (value ?? '').split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
/** Empty means "none"; anything else that is not digits is passed on for the service to name the field. */
const wholeNumberOrNull = (value: string | undefined) => {
  const text = (value ?? '').trim();
  return text === '' ? null : /^\d+$/.test(text) ? Number(text) : (text as unknown as number);
};

interface SubmitterEcho {
  values: Record<string, string>;
  fieldErrors: Record<string, string>;
}

const SUBMITTER_TEXT_FIELDS = ['autoReplyField', 'autoReplySubject', 'autoReplyBody', 'notifySubject', 'thanksTitle', 'thanksMessage', 'language'] as const;

/** The submitter section's fields as settings; empty texts restore the defaults. */
function submitterSettingsFromBody(body: SettingsBody): { input: FormSettingsInput; values: Record<string, string>; fieldErrors: Record<string, string> } {
  const values: Record<string, string> = {};
  const fieldErrors: Record<string, string> = {};
  for (const field of SUBMITTER_TEXT_FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value === 'string') values[field] = value;
    else fieldErrors[field] = 'Enter one value only';
  }
  const enabled = body.autoReplyEnabled === '1' || body.autoReplyEnabled === 'on';
  values.autoReplyEnabled = enabled ? '1' : '';
  const emptyToNull = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.replace(/\r\n/g, '\n'));
  return {
    values,
    fieldErrors,
    input: {
      autoReply: {
        enabled,
        field: (values.autoReplyField ?? '').trim() || 'email',
        subject: emptyToNull(values.autoReplySubject),
        body: emptyToNull(values.autoReplyBody),
      },
      notifySubject: emptyToNull(values.notifySubject),
      thanksTitle: emptyToNull(values.thanksTitle),
      thanksMessage: emptyToNull(values.thanksMessage),
      language: (values.language ?? 'auto') as FormSettingsInput['language'],
    },
  };
}

export async function formPages(app: FastifyInstance): Promise<void> {
  // The notification settings on the settings page post to email.routes.ts.
  const renderForms = async (request: FastifyRequest, reply: FastifyReply, extra: { values?: Record<string, string>; fieldErrors?: Record<string, string>; error?: string } = {}, status = 200) => {
    const accountId = request.owner!.id;
    const forms = await app.services.forms.listForms(accountId);
    const formIds = forms.map((f) => f.id);
    const [summaries, disabledIntegrations] = await Promise.all([
      app.services.submissionBrowser.summariseForms(accountId, formIds),
      app.services.integrations.formsWithDisabledIntegrations(formIds),
    ]);
    const rows = forms.map((f) => ({
      ...f,
      ...(summaries.get(f.id) ?? { inbox: 0, spam: 0, lastSubmissionAt: null }),
      integrationDisabled: disabledIntegrations.has(f.id),
    }));
    const ctx = { ...pageContext(request, reply, 'Forms'), ...(extra.error ? { error: extra.error } : {}) };
    return sendPage(reply, 'forms', ctx, { forms: rows, values: extra.values ?? {}, fieldErrors: extra.fieldErrors ?? {} }, status);
  };

  app.get('/dashboard/forms', { schema: { hide: true } }, async (request, reply) => renderForms(request, reply));

  app.post<{ Body: { name?: string } }>(
    '/dashboard/forms',
    { schema: { hide: true, body: { type: 'object', properties: { name: { type: 'string', maxLength: 1000 }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const name = (request.body.name ?? '').trim();
      if (name === '' || name.length > 200) {
        return renderForms(request, reply, { values: { name: request.body.name ?? '' }, fieldErrors: { name: name === '' ? 'Enter a name for the form' : 'Use at most 200 characters' }, error: 'The form needs a name.' }, 400);
      }
      const form = await app.services.forms.createForm(request.owner!.id, { name });
      return reply.redirect(`/dashboard/forms/${form.id}/settings`, 303);
    },
  );

  const defaultSecrets = {
    turnstile: app.config.turnstileSecretKey !== undefined,
    hcaptcha: app.config.hcaptchaSecretKey !== undefined,
    recaptcha: app.config.recaptchaSecretKey !== undefined,
  };
  /** A vendor chosen with no secret anywhere (an older row, or the variable removed since): every submission is spam. */
  const missingSecret = (form: Form) =>
    (form.botCheck === 'turnstile' && !form.turnstileSecret && !defaultSecrets.turnstile) ||
    (form.botCheck === 'hcaptcha' && !form.hcaptchaSecret && !defaultSecrets.hcaptcha) ||
    (form.botCheck === 'recaptcha' && !form.recaptchaSecret && !defaultSecrets.recaptcha);

  const renderSettings = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: Form,
    extra: { notice?: string; error?: string; values?: Record<string, string>; fieldErrors?: Record<string, string>; submitter?: SubmitterEcho } = {},
    status = 200,
  ) => {
    const submitUrl = `${app.config.baseUrl}/v1/submit/${form.id}`;
    const altcha = altchaUrls(app.config.baseUrl, form.id);
    const { values, fieldErrors, submitter, ...messages } = extra;
    return sendPage(reply, 'settings', { ...pageContext(request, reply, form.name), ...messages }, {
      form,
      submitUrl,
      snippet: formSnippet(form, submitUrl, altcha),
      scriptSnippet: formSnippet(form, submitUrl, altcha, {
        url: `${app.config.baseUrl}${app.clientScript.versionedPath}`,
        integrity: app.clientScript.integrity,
      }),
      reactSnippet: reactSnippet(form, app.config.baseUrl),
      baseUrl: app.config.baseUrl,
      defaultSecrets,
      missingSecret: missingSecret(form),
      spamFilterExamples: await app.services.spamFilter.countExamples(form.accountId),
      values: values ?? {},
      fieldErrors: fieldErrors ?? {},
      notifications: {
        enabled: app.services.notifications.emailEnabled,
        recipients: await app.services.notifications.listRecipients(form.id),
      },
      submitter: {
        values: submitter?.values ?? {},
        fieldErrors: submitter?.fieldErrors ?? {},
        preview: app.services.notifications.previewConfirmation(form),
        suppressionCount: await app.services.suppressions.count(),
      },
    }, status);
  };

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/settings', { schema: { hide: true } }, async (request, reply) =>
    renderSettings(request, reply, await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: SettingsBody }>('/dashboard/forms/:id/settings', { schema: { hide: true } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    const body = request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? request.body : {};
    const { input, text, boxes, fieldErrors } = settingsFromBody(body);
    // What was typed goes back into the page, with each message next to its field.
    const refuse = (errors: Record<string, string>, message: string) =>
      renderSettings(request, reply, form, { error: message, values: { ...text, ...boxes }, fieldErrors: errors }, 400);
    if (Object.keys(fieldErrors).length > 0) return refuse(fieldErrors, 'Some settings need another look: see the messages by the fields.');
    try {
      const updated = await app.services.forms.updateForm(form.id, input, request.owner!.id);
      return await renderSettings(request, reply, updated, { notice: 'Settings saved.' });
    } catch (err) {
      rethrowUnlessValidation(err);
      const errors = Object.fromEntries(Object.entries(err.fieldErrors ?? {}).map(([f, m]) => [f, fieldMessages[f] ? `${fieldMessages[f]} (${m})` : m]));
      return refuse(errors, err.message);
    }
  });

  // The confirmation email, templates, thank-you page and language: their own form on the page.
  app.post<{ Params: { id: string }; Body: SettingsBody }>('/dashboard/forms/:id/submitter', { schema: { hide: true } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    const body = request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? request.body : {};
    const { input, values, fieldErrors } = submitterSettingsFromBody(body);
    const refuse = (errors: Record<string, string>, message: string) =>
      renderSettings(request, reply, form, { error: message, submitter: { values, fieldErrors: errors } }, 400);
    if (Object.keys(fieldErrors).length > 0) return refuse(fieldErrors, 'Some settings need another look: see the messages by the fields.');
    try {
      const updated = await app.services.forms.updateForm(form.id, input, request.owner!.id);
      return await renderSettings(request, reply, updated, { notice: 'Settings saved.' });
    } catch (err) {
      rethrowUnlessValidation(err);
      return refuse(err.fieldErrors ?? {}, err.message);
    }
  });

  const renderDelete = async (request: FastifyRequest, reply: FastifyReply, form: Form, error?: string) => {
    const count = await app.services.submissionQueries.countSubmissions(request.owner!.id, form.id);
    const ctx = { ...pageContext(request, reply, `Delete ${form.name}`), ...(error ? { error } : {}) };
    return sendPage(reply, 'deleteForm', ctx, { form, count }, error ? 400 : 200);
  };

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/delete', { schema: { hide: true } }, async (request, reply) =>
    renderDelete(request, reply, await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id)),
  );

  // Deleting a form takes everything with it (contract section 10): typing its name confirms.
  app.post<{ Params: { id: string }; Body: { confirmName?: unknown } }>('/dashboard/forms/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    if (typeof request.body?.confirmName !== 'string' || request.body.confirmName.trim() !== form.name) {
      return renderDelete(request, reply, form, `Type the form's name, “${form.name}”, to delete it.`);
    }
    await app.services.lifecycle.deleteForm(form.id, request.owner!.id);
    setFlash(reply, { notice: `Form “${form.name}” deleted.` }, app.config.baseUrl.startsWith('https:'));
    return reply.redirect('/dashboard/forms', 303);
  });
}
