import { Option, type Command } from 'commander';
import type { FormSettingsInput } from '../../../features/forms/form.service.js';
import {
  ALTCHA_COMPLEXITIES,
  BOT_CHECK_VENDORS,
  SPAM_FILTER_MODES,
  formToApiForm,
  formToSettingsView,
  type Form,
} from '../../../features/forms/form.types.js';
import { parseRecipientList } from '../../../features/notifications/notification.service.js';
import type { Services } from '../../../services.js';
import { withServices } from '../context.js';

interface FormOptions {
  name?: string;
  accessKey?: string;
  requireBotCheck?: boolean;
  turnstileSecret?: string;
  turnstileSiteKey?: string;
  successUrl?: string;
  errorUrl?: string;
  allowRedirectHost?: string[];
  blockedTerm?: string[];
  blockedEmail?: string[];
  allowedOrigin?: string[];
  maxLinks?: string;
  retentionDays?: string;
  storeIp?: string;
  inactive?: boolean;
  active?: boolean;
  notify?: string[];
  notifyMode?: string;
  botCheck?: string;
  hcaptchaSecret?: string;
  hcaptchaSiteKey?: string;
  recaptchaSecret?: string;
  recaptchaSiteKey?: string;
  recaptchaMinScore?: string;
  altchaComplexity?: string;
  minFillSeconds?: string;
  spamFilter?: string;
  notifySubject?: string;
  autoReply?: boolean;
  autoReplyField?: string;
  autoReplySubject?: string;
  autoReplyBody?: string;
  autoReplyDailyLimit?: string;
  thanksTitle?: string;
  thanksMessage?: string;
  language?: string;
  requiredField?: string[];
  files?: string;
  maxFiles?: string;
  maxFileBytes?: string;
  maxTotalBytes?: string;
  fileType?: string[];
  sealedRecipient?: string[];
  /** False with --no-sealed (commander's negated option). */
  sealed?: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function withFormOptions(command: Command): Command {
  return command
    .option('--access-key <key>', 'require this access_key on every submission ("" to stop requiring one)')
    .option('--require-bot-check', 'require a valid Cloudflare Turnstile token (needs a secret: --turnstile-secret or TURNSTILE_SECRET_KEY)')
    .addOption(new Option('--no-require-bot-check', 'stop requiring the bot check').hideHelp())
    .option('--turnstile-secret <secret>', 'Turnstile secret for this form (default: TURNSTILE_SECRET_KEY)')
    .option('--turnstile-site-key <key>', 'Turnstile site key, used in the dashboard snippet ("" to clear)')
    .option('--success-url <url>', 'where to redirect after a successful HTML post ("" to clear)')
    .option('--error-url <url>', 'where to redirect after a failed HTML post ("" to clear)')
    .option('--allow-redirect-host <host>', 'a host the redirect field may point to (repeatable)', collect)
    .option('--blocked-term <text>', 'spam when a field value contains this (repeatable; replaces the list; "" clears)', collect)
    .option('--blocked-email <address>', 'spam when a field is this address, or @domain (repeatable; replaces the list; "" clears)', collect)
    .option('--allowed-origin <host>', 'accept submissions only from pages on this host (repeatable; replaces the list; "" clears)', collect)
    .option('--max-links <n>', 'spam when the values hold more than n links ("" clears)')
    .option('--retention-days <n>', 'delete submissions older than n days, 1-3650 ("" keeps them)')
    .option('--required-field <name>', 'refuse submissions without a value in this field (repeatable; replaces the list; "" clears)', collect)
    .option('--store-ip <mode>', 'full (default) or none: keep no IP address')
    .option('--inactive', 'refuse submissions (form_inactive)')
    .option('--notify <email>', 'email each submission to this address (repeatable, at most 5; replaces the list; "" clears it)', collect)
    .addOption(new Option('--notify-mode <mode>', 'one email per submission, or an hourly or daily digest').choices(['each', 'hourly', 'daily']))
    .addOption(new Option('--bot-check <vendor>', 'the bot check submissions must pass (altcha: proof of work, no third party)').choices(BOT_CHECK_VENDORS))
    .option('--hcaptcha-secret <secret>', 'hCaptcha secret for this form (default: HCAPTCHA_SECRET_KEY; "" to clear)')
    .option('--hcaptcha-site-key <key>', 'hCaptcha site key, used in the dashboard snippet ("" to clear)')
    .option('--recaptcha-secret <secret>', 'reCAPTCHA secret for this form (default: RECAPTCHA_SECRET_KEY; "" to clear)')
    .option('--recaptcha-site-key <key>', 'reCAPTCHA site key, used in the dashboard snippet ("" to clear)')
    .option('--recaptcha-min-score <n>', 'reCAPTCHA v3 tokens scoring below this (0-1, default 0.5) are spam')
    .addOption(new Option('--altcha-complexity <level>', 'ALTCHA proof-of-work size (default medium)').choices(ALTCHA_COMPLEXITIES))
    .option('--min-fill-seconds <n>', 'ALTCHA: a solution sent sooner than n seconds (0-60, 0 = off) after its challenge is spam (too_fast)')
    .addOption(new Option('--spam-filter <mode>', "learn: file what the account's learning filter is sure is spam").choices(SPAM_FILTER_MODES))
    .option('--notify-subject <template>', 'subject of the notification email, e.g. "New: {{form.name}}" ("" restores the default)')
    .option('--auto-reply', 'send a confirmation email to the address in the submission (see --auto-reply-field)')
    .addOption(new Option('--no-auto-reply', 'stop sending confirmation emails'))
    .option('--auto-reply-field <name>', 'the field holding the visitor\'s address (default: email)')
    .option('--auto-reply-subject <template>', 'subject of the confirmation, with {{field}} variables ("" restores the default)')
    .option('--auto-reply-body <template>', 'plain-text body of the confirmation, with {{field}} variables ("" restores the default)')
    .option('--auto-reply-daily-limit <n>', 'at most n confirmations per UTC day (default 200)')
    .option('--thanks-title <text>', 'title of the hosted thank-you page ("" restores the default)')
    .option('--thanks-message <text>', 'message of the hosted thank-you page ("" restores the default)')
    .addOption(new Option('--language <language>', 'language of the public pages and default confirmation texts').choices(['auto', 'en', 'de', 'fr', 'es', 'pt']))
    .addOption(new Option('--files <mode>', 'store: keep uploaded files; off (default): file parts are ignored').choices(['off', 'store']))
    .option('--max-files <n>', 'at most n files per submission (1-20, default 5)')
    .option('--max-file-bytes <n>', 'at most n bytes per file (default 10 MiB, never over FILES_MAX_BYTES)')
    .option('--max-total-bytes <n>', 'at most n bytes of files per submission (default 25 MiB)')
    .option('--file-type <type>', 'a MIME type or group (images, pdf, text, csv, office, zip) files may be (repeatable; replaces the list; "" restores the default)', collect)
    .option('--sealed-recipient <recipient>', 'seal the form to this age recipient, age1… (repeatable; replaces the list; text after a space is its label)', collect)
    .option('--no-sealed', 'stop sealing: new submissions arrive in clear (sealed ones stay sealed)')
    .option('--json', 'print JSON');
}

const orNull = (value: string | undefined) => (value === undefined ? undefined : value === '' ? null : value);
/** A repeated option replaces the list; `""` alone clears it. */
const list = (values: string[]) => values.filter((v) => v !== '');
/** Numbers are checked by the form service (its field error names the setting). */
const numberOrNull = (value: string) => (value.trim() === '' ? null : /^-?\d+$/.test(value.trim()) ? Number(value) : (value as unknown as number));
const decimal = (value: string) => (/^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : (value as unknown as number));

function toSettings(o: FormOptions): FormSettingsInput {
  const settings: FormSettingsInput = {};
  if (o.name !== undefined) settings.name = o.name;
  if (o.accessKey !== undefined) settings.accessKey = orNull(o.accessKey);
  if (o.requireBotCheck !== undefined) settings.requireBotCheck = o.requireBotCheck;
  if (o.turnstileSecret !== undefined) settings.turnstileSecret = orNull(o.turnstileSecret);
  if (o.turnstileSiteKey !== undefined) settings.turnstileSiteKey = orNull(o.turnstileSiteKey);
  if (o.successUrl !== undefined) settings.successUrl = orNull(o.successUrl);
  if (o.errorUrl !== undefined) settings.errorUrl = orNull(o.errorUrl);
  if (o.allowRedirectHost !== undefined) settings.allowedRedirectHosts = list(o.allowRedirectHost);
  if (o.blockedTerm !== undefined) settings.blockedTerms = list(o.blockedTerm);
  if (o.blockedEmail !== undefined) settings.blockedEmails = list(o.blockedEmail);
  if (o.allowedOrigin !== undefined) settings.allowedOrigins = list(o.allowedOrigin);
  if (o.maxLinks !== undefined) settings.maxLinks = numberOrNull(o.maxLinks);
  if (o.retentionDays !== undefined) settings.retentionDays = numberOrNull(o.retentionDays);
  if (o.requiredField !== undefined) settings.requiredFields = list(o.requiredField);
  if (o.storeIp !== undefined) settings.storeIp = o.storeIp as 'full' | 'none';
  if (o.inactive) settings.isActive = false;
  if (o.active) settings.isActive = true;
  if (o.notifyMode !== undefined) settings.notifyMode = o.notifyMode as FormSettingsInput['notifyMode'];
  if (o.botCheck !== undefined) settings.botCheck = o.botCheck as FormSettingsInput['botCheck'];
  if (o.hcaptchaSecret !== undefined) settings.hcaptchaSecret = orNull(o.hcaptchaSecret);
  if (o.hcaptchaSiteKey !== undefined) settings.hcaptchaSiteKey = orNull(o.hcaptchaSiteKey);
  if (o.recaptchaSecret !== undefined) settings.recaptchaSecret = orNull(o.recaptchaSecret);
  if (o.recaptchaSiteKey !== undefined) settings.recaptchaSiteKey = orNull(o.recaptchaSiteKey);
  if (o.recaptchaMinScore !== undefined) settings.recaptchaMinScore = decimal(o.recaptchaMinScore);
  if (o.altchaComplexity !== undefined) settings.altchaComplexity = o.altchaComplexity as FormSettingsInput['altchaComplexity'];
  if (o.minFillSeconds !== undefined) settings.minFillSeconds = decimal(o.minFillSeconds);
  if (o.spamFilter !== undefined) settings.spamFilter = o.spamFilter as FormSettingsInput['spamFilter'];
  if (o.notifySubject !== undefined) settings.notifySubject = orNull(o.notifySubject);
  const autoReply: NonNullable<FormSettingsInput['autoReply']> = {};
  if (o.autoReply !== undefined) autoReply.enabled = o.autoReply;
  if (o.autoReplyField !== undefined) autoReply.field = o.autoReplyField;
  if (o.autoReplySubject !== undefined) autoReply.subject = orNull(o.autoReplySubject);
  if (o.autoReplyBody !== undefined) autoReply.body = orNull(o.autoReplyBody);
  if (Object.keys(autoReply).length > 0) settings.autoReply = autoReply;
  if (o.autoReplyDailyLimit !== undefined) settings.autoReplyDailyLimit = numberOrNull(o.autoReplyDailyLimit) ?? 200;
  if (o.thanksTitle !== undefined) settings.thanksTitle = orNull(o.thanksTitle);
  if (o.thanksMessage !== undefined) settings.thanksMessage = orNull(o.thanksMessage);
  if (o.language !== undefined) settings.language = o.language as FormSettingsInput['language'];
  if (o.files !== undefined) settings.files = o.files as FormSettingsInput['files'];
  if (o.maxFiles !== undefined) settings.maxFiles = decimal(o.maxFiles);
  if (o.maxFileBytes !== undefined) settings.maxFileBytes = decimal(o.maxFileBytes);
  if (o.maxTotalBytes !== undefined) settings.maxTotalBytes = decimal(o.maxTotalBytes);
  if (o.fileType !== undefined) settings.fileTypes = list(o.fileType);
  if (o.sealedRecipient !== undefined) settings.sealed = { recipients: list(o.sealedRecipient).map(sealedRecipientOption) };
  if (o.sealed === false) settings.sealed = null;
  return settings;
}

/** "age1… Ana's laptop": the recipient, then its optional label. */
function sealedRecipientOption(value: string): { recipient: string; label: string | null } {
  const [recipient = '', ...label] = value.trim().split(/\s+/);
  return { recipient, label: label.length > 0 ? label.join(' ') : null };
}

/** `--notify ""` clears the list; addresses set by the operator count as verified. */
async function applyRecipients(s: Services, formId: string, o: FormOptions): Promise<void> {
  if (o.notify === undefined) return;
  parseRecipientList(o.notify.filter((a) => a !== ''));
  await s.notifications.setRecipients(formId, o.notify.filter((a) => a !== ''), { verified: true });
}

/** `{id, name, isActive, createdAt}` plus every setting (notification recipients included). */
async function formOutput(s: Services, form: Form) {
  const recipients = await s.notifications.listRecipients(form.id);
  return {
    form: {
      ...formToApiForm(form),
      settings: { ...formToSettingsView(form), notify: recipients.map((r) => r.address), notifyMode: form.notifyMode },
    },
  };
}

const describe = ({ form }: { form: ReturnType<typeof formToApiForm> }) =>
  `Form ${form.id} "${form.name}" (${form.isActive ? 'active' : 'inactive'}); submit URL path /v1/submit/${form.id}`;

export function registerForms(program: Command): void {
  const forms = program.command('forms').description('manage forms');

  withFormOptions(
    forms
      .command('create <account>')
      .description('create a form for an account (by ID or email)')
      .requiredOption('--name <name>', 'form name'),
  ).action((account: string, o: FormOptions) =>
    withServices(
      o,
      async (s) => {
        const owner = await s.accounts.getAccountByIdOrEmail(account);
        // Checked before anything is written, so a bad address creates no form.
        if (o.notify) parseRecipientList(o.notify);
        const form = await s.forms.createForm(owner.id, { ...toSettings(o), name: o.name! });
        await applyRecipients(s, form.id, o);
        return formOutput(s, form);
      },
      describe,
    ),
  );

  withFormOptions(
    forms.command('update <formId>').description('change settings of a form').option('--name <name>', 'form name'),
  )
    .option('--active', 'accept submissions again')
    .action((formId: string, o: FormOptions) =>
      withServices(
        o,
        async (s) => {
          if (o.notify) parseRecipientList(o.notify);
          const form = await s.forms.updateForm(formId, toSettings(o));
          await applyRecipients(s, form.id, o);
          return formOutput(s, form);
        },
        describe,
      ),
    );

  forms
    .command('delete <formId>')
    .description('delete a form with its submissions, hooks, deliveries and queued work')
    .option('--json', 'print JSON')
    .action((formId: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          await s.lifecycle.deleteForm(formId);
          return { deleted: true as const };
        },
        () => `Form ${formId} deleted, with its submissions, hooks and queued work.`,
      ),
    );
}
