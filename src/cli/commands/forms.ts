import { Option, type Command } from 'commander';
import type { FormSettingsInput } from '../../forms/form.service.js';
import { formToApiForm, type Form } from '../../forms/form.types.js';
import { parseRecipientList } from '../../notifications/notification.service.js';
import type { Services } from '../../services.js';
import { withServices } from '../context.js';

interface FormOptions {
  name?: string;
  accessKey?: string;
  requireBotCheck?: boolean;
  turnstileSecret?: string;
  successUrl?: string;
  errorUrl?: string;
  allowRedirectHost?: string[];
  inactive?: boolean;
  active?: boolean;
  notify?: string[];
  notifyMode?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function withFormOptions(command: Command): Command {
  return command
    .option('--access-key <key>', 'require this access_key on every submission ("" to stop requiring one)')
    .option('--require-bot-check', 'require a valid Cloudflare Turnstile token')
    .addOption(new Option('--no-require-bot-check', 'stop requiring the bot check').hideHelp())
    .option('--turnstile-secret <secret>', 'Turnstile secret for this form (default: TURNSTILE_SECRET_KEY)')
    .option('--success-url <url>', 'where to redirect after a successful HTML post ("" to clear)')
    .option('--error-url <url>', 'where to redirect after a failed HTML post ("" to clear)')
    .option('--allow-redirect-host <host>', 'a host the redirect field may point to (repeatable)', collect)
    .option('--inactive', 'refuse submissions (form_inactive)')
    .option('--notify <email>', 'email each submission to this address (repeatable, at most 5; replaces the list; "" clears it)', collect)
    .addOption(new Option('--notify-mode <mode>', 'one email per submission, or an hourly or daily digest').choices(['each', 'hourly', 'daily']))
    .option('--json', 'print JSON');
}

const orNull = (value: string | undefined) => (value === undefined ? undefined : value === '' ? null : value);

function toSettings(o: FormOptions): FormSettingsInput {
  const settings: FormSettingsInput = {};
  if (o.name !== undefined) settings.name = o.name;
  if (o.accessKey !== undefined) settings.accessKey = orNull(o.accessKey);
  if (o.requireBotCheck !== undefined) settings.requireBotCheck = o.requireBotCheck;
  if (o.turnstileSecret !== undefined) settings.turnstileSecret = orNull(o.turnstileSecret);
  if (o.successUrl !== undefined) settings.successUrl = orNull(o.successUrl);
  if (o.errorUrl !== undefined) settings.errorUrl = orNull(o.errorUrl);
  if (o.allowRedirectHost !== undefined) settings.allowedRedirectHosts = o.allowRedirectHost;
  if (o.inactive) settings.isActive = false;
  if (o.active) settings.isActive = true;
  if (o.notifyMode !== undefined) settings.notifyMode = o.notifyMode as FormSettingsInput['notifyMode'];
  return settings;
}

/** `--notify ""` clears the list; addresses set by the operator count as verified. */
async function applyRecipients(s: Services, formId: string, o: FormOptions): Promise<void> {
  if (o.notify === undefined) return;
  parseRecipientList(o.notify.filter((a) => a !== ''));
  await s.notifications.setRecipients(formId, o.notify.filter((a) => a !== ''), { verified: true });
}

async function formOutput(s: Services, form: Form) {
  const recipients = await s.notifications.listRecipients(form.id);
  return {
    form: {
      ...formToApiForm(form),
      settings: { notify: recipients.map((r) => r.address), notifyMode: form.notifyMode },
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
}
