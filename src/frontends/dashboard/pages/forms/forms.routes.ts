import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rethrowUnlessValidation } from '../../../../platform/errors.js';
import type { FormSettingsInput } from '../../../../features/forms/form.service.js';
import type { Form } from '../../../../features/forms/form.types.js';
import { splitHostList } from '../../../../features/forms/host-list.js';
import { pageContext, sendPage, setFlash } from '../../page.js';
import { altchaUrls } from '../../../../features/bot-checks/altcha-widget.js';
import { spamFilterStatusText } from '../submissions/submissions.model.js';
import { formSnippet, reactSnippet } from '../../views/snippets.js';
import { formatBytes, parseByteSize } from '../../../../platform/lib/file-links.js';

/** A size as the page shows it: in KiB/MiB when that reads back exactly, else in bytes. */
const sizeInWords = (bytes: number) => (parseByteSize(formatBytes(bytes)) === bytes ? formatBytes(bytes) : String(bytes));

type SettingsBody = Record<string, unknown>;

const TEXT_FIELDS = [
  'name', 'accessKey', 'turnstileSecret', 'successUrl', 'errorUrl', 'allowedRedirectHosts',
  'turnstileSiteKey', 'blockedTerms', 'blockedEmails', 'allowedOrigins', 'maxLinks', 'retentionDays', 'storeIp',
  'botCheck', 'hcaptchaSecret', 'hcaptchaSiteKey', 'recaptchaSecret', 'recaptchaSiteKey', 'recaptchaMinScore',
  'altchaComplexity', 'minFillSeconds', 'spamFilter',
  'requiredFields', 'files', 'maxFiles', 'maxFileBytes', 'maxTotalBytes', 'fileTypes',
] as const;
const CHECKBOXES = ['isActive', 'requireAccessKey'] as const;

const blankToNull = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.trim());

/** Words for the settings fields' errors, whatever the service called them. */
const fieldMessages: Record<string, string> = {
  name: 'Enter a name for the form, up to 200 characters.',
  accessKey: 'Enter an access key of up to 256 characters.',
  successUrl: 'Enter a full address starting with https:// or http://, like https://example.com/thanks.',
  errorUrl: 'Enter a full address starting with https:// or http://, like https://example.com/oops.',
  allowedRedirectHosts: 'Enter host names separated by commas, like shop.example.com (a pasted page address works too).',
  allowedOrigins: 'Enter host names separated by commas, like www.example.com (a pasted page address works too).',
  turnstileSecret: 'Enter the Turnstile secret from the Cloudflare dashboard (or set TURNSTILE_SECRET_KEY on the server).',
  turnstileSiteKey: 'Enter the Turnstile site key as the Cloudflare dashboard shows it (letters, digits, _ and -).',
  blockedTerms: 'Enter one term per line, each up to 200 characters (at most 200 terms).',
  blockedEmails: 'Enter one address (name@example.com) or @domain per line (at most 200).',
  maxLinks: 'Enter a whole number from 0 to 1000, or leave it empty for no limit.',
  retentionDays: 'Enter a whole number of days from 1 to 3650, or leave it empty to keep submissions.',
  storeIp: 'Choose whether to store IP addresses.',
  requiredFields: 'Enter field names separated by commas, like email, message (at most 50, each up to 256 characters).',
  hcaptchaSecret: 'Enter the hCaptcha secret (or set HCAPTCHA_SECRET_KEY on the server).',
  recaptchaSecret: 'Enter the reCAPTCHA secret (or set RECAPTCHA_SECRET_KEY on the server).',
  recaptchaMinScore: 'Enter a number from 0 to 1, like 0.5.',
  minFillSeconds: 'Enter a whole number of seconds from 0 to 60.',
  files: 'Choose whether to keep uploaded files.',
  maxFiles: 'Enter a whole number of files from 1 to 20.',
  maxFileBytes: 'Enter the largest file as a size, like 10 MiB or 512 KiB (or a number of bytes).',
  maxTotalBytes: 'Enter the most of all files of a submission as a size, like 25 MiB (or a number of bytes).',
  fileTypes: 'Enter groups (images, pdf, text, csv, office, zip) or MIME types like application/pdf, separated by commas; HTML, SVG and XML are never taken.',
};

/** The list fields, as the page splits them, to name the entry a message is about. */
const LIST_FIELDS: Record<string, (text: string) => string[]> = {
  allowedRedirectHosts: splitHostList,
  allowedOrigins: splitHostList,
  blockedTerms: (text) => lines(text),
  blockedEmails: (text) => lines(text).flatMap((line) => line.split(/[\s,;]+/)).filter(Boolean),
  requiredFields: (text) => text.split(/[,\r\n]+/).map((name) => name.trim()).filter(Boolean),
  fileTypes: (text) => text.split(/[,\s]+/).filter(Boolean),
};

/**
 * A person's sentence for a settings error: the field's own words, naming the entry of a list
 * that is wrong ("“exa mple.com” is not valid."). The service's terse text never reaches the page,
 * except a rule it alone knows (the bot check's secret), which it words for people already.
 */
function settingsErrorMessage(field: string, serviceText: string, typed: Record<string, string>): string {
  const human = fieldMessages[field];
  if (!human) return serviceText;
  const entry = /^entry (\d+):/.exec(serviceText);
  if (entry && LIST_FIELDS[field]) {
    const value = LIST_FIELDS[field](typed[field] ?? '')[Number(entry[1]) - 1];
    if (value !== undefined) return `“${value.length > 80 ? `${value.slice(0, 80)}…` : value}” is not valid. ${human}`;
  }
  return human;
}

/** A posted page's text fields; one sent twice or as something other than text (a crafted request) is a field error, never a crash. */
function readTextFields(body: SettingsBody, fields: readonly string[], fieldErrors: Record<string, string>): Record<string, string> {
  const text: Record<string, string> = {};
  for (const field of fields) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value === 'string') text[field] = value;
    else fieldErrors[field] = Array.isArray(value) ? 'Enter one value only' : 'Enter text';
  }
  return text;
}

/**
 * Turns the settings page's fields into form settings (unchecked boxes are absent). A field sent
 * twice or as something other than text (a crafted request) is a field error, never a crash; a
 * box sent twice is still checked.
 */
function settingsFromBody(body: SettingsBody): { input: FormSettingsInput; text: Record<string, string>; boxes: Record<string, string>; fieldErrors: Record<string, string> } {
  const fieldErrors: Record<string, string> = {};
  const text = readTextFields(body, TEXT_FIELDS, fieldErrors);
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
      allowedRedirectHosts: splitHostList(text.allowedRedirectHosts ?? ''),
      turnstileSiteKey: blankToNull(text.turnstileSiteKey),
      blockedTerms: lines(text.blockedTerms),
      blockedEmails: lines(text.blockedEmails).flatMap((line) => line.split(/[\s,;]+/)).filter(Boolean),
      allowedOrigins: splitHostList(text.allowedOrigins ?? ''),
      maxLinks: wholeNumberOrNull(text.maxLinks),
      retentionDays: wholeNumberOrNull(text.retentionDays),
      storeIp: (text.storeIp ?? 'full') as 'full' | 'none',
      requiredFields: (text.requiredFields ?? '').split(/[,\r\n]+/).map((name) => name.trim()).filter(Boolean),
      files: (text.files ?? 'off') as FormSettingsInput['files'],
      // Empty keeps what is set.
      ...optionalWholeNumber('maxFiles', text.maxFiles),
      ...optionalSize('maxFileBytes', text.maxFileBytes),
      ...optionalSize('maxTotalBytes', text.maxTotalBytes),
      fileTypes: (text.fileTypes ?? '').split(/[,\s]+/).filter(Boolean),
    },
  };
}

const decimal = (value: string) => (/^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : (value as unknown as number));
/** One entry per non-empty line. */
const lines = (value: string | undefined) => (value ?? '').split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
/** Empty means "none"; anything else that is not digits is passed on for the service to name the field. */
const optionalWholeNumber = (name: 'maxFiles', value: string | undefined) => {
  const number = wholeNumberOrNull(value);
  return number === null ? {} : { [name]: number };
};
/** A size as people write it (10 MiB, 512 KiB, 1.5 MB, or bytes); empty keeps what is set; anything else is passed on for the service to name the field. */
const optionalSize = (name: 'maxFileBytes' | 'maxTotalBytes', value: string | undefined) => {
  const text = (value ?? '').trim();
  if (text === '') return {};
  return { [name]: parseByteSize(text) ?? (text as unknown as number) };
};
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
  const fieldErrors: Record<string, string> = {};
  const values = readTextFields(body, SUBMITTER_TEXT_FIELDS, fieldErrors);
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

/** The form's three snippets: plain HTML, with Formgate's script, and React. */
function snippetsOf(app: FastifyInstance, form: Form) {
  const submitUrl = `${app.config.baseUrl}/v1/submit/${form.id}`;
  const altcha = altchaUrls(app.config.baseUrl, form.id);
  return {
    submitUrl,
    snippet: formSnippet(form, submitUrl, altcha),
    scriptSnippet: formSnippet(form, submitUrl, altcha, {
      url: `${app.config.baseUrl}${app.clientScript.versionedPath}`,
      integrity: app.clientScript.integrity,
    }),
    reactSnippet: reactSnippet(form, app.config.baseUrl, altcha),
  };
}

/** Messages and typed values for a re-rendered settings page. */
export interface SettingsExtra {
  notice?: string;
  error?: string;
  values?: Record<string, string>;
  fieldErrors?: Record<string, string>;
  submitter?: SubmitterEcho;
}

/** The settings page, also re-rendered by the notification settings' POST with its errors. */
export async function renderSettingsPage(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, form: Form, extra: SettingsExtra = {}, status = 200): Promise<FastifyReply> {
  const defaultSecrets = {
    turnstile: app.config.turnstileSecretKey !== undefined,
    hcaptcha: app.config.hcaptchaSecretKey !== undefined,
    recaptcha: app.config.recaptchaSecretKey !== undefined,
  };
  // A vendor chosen with no secret anywhere (an older row, or the variable removed since): every submission is spam.
  const missingSecret =
    (form.botCheck === 'turnstile' && !form.turnstileSecret && !defaultSecrets.turnstile) ||
    (form.botCheck === 'hcaptcha' && !form.hcaptchaSecret && !defaultSecrets.hcaptcha) ||
    (form.botCheck === 'recaptcha' && !form.recaptchaSecret && !defaultSecrets.recaptcha);
  const { values, fieldErrors, submitter, ...messages } = extra;
  return sendPage(reply, 'settings', { ...pageContext(request, reply, form.name), ...messages }, {
    form,
    fileSizes: { maxFileBytes: sizeInWords(form.maxFileBytes), maxTotalBytes: sizeInWords(form.maxTotalBytes), ceiling: formatBytes(app.config.files.maxBytes) },
    ...snippetsOf(app, form),
    baseUrl: app.config.baseUrl,
    defaultSecrets,
    missingSecret,
    spamFilterStatus: spamFilterStatusText(await app.services.spamFilter.status(form.accountId)),
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
      ...(summaries.get(f.id) ?? { inbox: 0, spam: 0, unread: 0, open: 0, lastSubmissionAt: null }),
      integrationDisabled: disabledIntegrations.has(f.id),
    }));
    const ctx = { ...pageContext(request, reply, 'Forms'), ...(extra.error ? { error: extra.error } : {}) };
    return sendPage(reply, 'forms', ctx, { forms: rows, values: extra.values ?? {}, fieldErrors: extra.fieldErrors ?? {} }, status);
  };

  app.get('/dashboard/forms', { schema: { hide: true } }, async (request, reply) => renderForms(request, reply));

  app.post<{ Body: { name?: string } }>(
    '/dashboard/forms',
    { schema: { hide: true, body: { type: 'object', properties: { name: { type: 'string' }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const name = (request.body.name ?? '').trim();
      if (name === '' || name.length > 200) {
        const problem = name === '' ? 'Enter a name for the form.' : `Use at most 200 characters (this name has ${name.length}).`;
        return renderForms(request, reply, { values: { name: request.body.name ?? '' }, fieldErrors: { name: problem }, error: 'The form was not created: see the message by the name.' }, 400);
      }
      const form = await app.services.forms.createForm(request.owner!.id, { name });
      // The creator hears of its submissions at once: their own address, confirmed when it was
      // shown to be theirs, else sent the usual confirmation link.
      if (app.services.notifications.emailEnabled && request.user) {
        const confirmed = await app.services.accounts.isEmailConfirmed(request.user.id);
        await app.services.notifications.setRecipients(form.id, [request.user.email], { verified: confirmed, accountId: request.owner!.id });
      }
      setFlash(reply, { notice: 'Form created.' }, app.config.baseUrl.startsWith('https:'));
      return reply.redirect(`/dashboard/forms/${form.id}/settings`, 303);
    },
  );

  const renderSettings = (request: FastifyRequest, reply: FastifyReply, form: Form, extra: SettingsExtra = {}, status = 200) =>
    renderSettingsPage(app, request, reply, form, extra, status);

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/settings', { schema: { hide: true } }, async (request, reply) =>
    renderSettings(request, reply, await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id)),
  );

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/snippet', { schema: { hide: true } }, async (request, reply) => {
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
    return sendPage(reply, 'formSnippet', pageContext(request, reply, `${form.name}: snippet`), { form, ...snippetsOf(app, form) });
  });

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
      const errors = Object.fromEntries(Object.entries(err.fieldErrors ?? {}).map(([f, m]) => [f, f === 'turnstileSecret' ? fieldMessages[f]! : settingsErrorMessage(f, m, text)]));
      return refuse(errors, 'Some settings need another look: see the messages by the fields.');
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

  // Deleting a form takes everything with it (docs/spam-and-privacy.md): typing its name confirms.
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
