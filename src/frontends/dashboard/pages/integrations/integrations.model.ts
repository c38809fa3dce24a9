import type { Form } from '../../../../features/forms/form.types.js';
import { MAX_INTEGRATIONS_PER_FORM, type Integration, type IntegrationAttempt } from '../../../../features/integrations/integration.types.js';
import { SERVICE_KINDS } from '../../../../features/integrations/service-kinds.js';

/** The add form of each kind: which fields it asks for, in the owner's words. */
export const INTEGRATION_FORMS = [
  { kind: 'slack', label: 'Slack', url: 'Incoming webhook URL', urlPlaceholder: 'https://hooks.slack.com/services/…', help: 'Mattermost and Rocket.Chat incoming webhooks take this format too.' },
  { kind: 'discord', label: 'Discord', url: 'Webhook URL', urlPlaceholder: 'https://discord.com/api/webhooks/…', help: 'Server Settings → Integrations → Webhooks → Copy Webhook URL.' },
  { kind: 'telegram', label: 'Telegram', token: 'Bot token', tokenPlaceholder: '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0', chatId: true, help: 'The token comes from @BotFather; add the bot to the chat first.' },
  { kind: 'teams', label: 'Microsoft Teams', url: 'Workflows webhook URL', urlPlaceholder: 'https://….logic.azure.com/workflows/…', help: 'Channel → Workflows → "Post to a channel when a webhook request is received".' },
  { kind: 'ntfy', label: 'ntfy', url: 'Topic URL', urlPlaceholder: 'https://ntfy.sh/your-secret-topic', token: 'Access token (optional)', tokenPlaceholder: 'tk_…', help: 'Pick a topic name nobody can guess; a token only for protected topics.' },
] as const;

/** The add form of each service kind: its declared fields (service-kind.ts). */
export const SERVICE_FORMS = SERVICE_KINDS.map((k) => ({
  kind: k.kind,
  label: k.label,
  help: k.help,
  fields: k.fields.map((f) => ({ name: f.name, label: f.label, secret: f.secret === true, required: f.required === true, multiline: f.multiline === true || f.repeated === true, placeholder: f.placeholder ?? '' })),
}));

export const INTEGRATION_LABELS: Record<string, string> = Object.fromEntries([...INTEGRATION_FORMS, ...SERVICE_FORMS].map((k) => [k.kind, k.label]));

/** A service kind's settings as the list shows them: each field's label and value, secrets as `set`. */
function shownSettings(integration: Integration): Array<{ label: string; value: string }> {
  const kind = SERVICE_KINDS.find((k) => k.kind === integration.kind);
  if (!kind) return [];
  return kind.fields.flatMap((f) => {
    if (f.secret) return integration.secrets[f.name] ? [{ label: f.label, value: 'set' }] : [];
    const value = integration.settings[f.name];
    if (value === undefined || value === null || value === '') return [];
    const text = Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k} → ${String(v)}`).join(', ') : String(value);
    return text === '' ? [] : [{ label: f.label, value: text }];
  });
}

/** A form's Integrations page: each integration with its recent attempts, and the add forms. */
export function integrationsPageModel(input: {
  form: Form;
  integrations: Integration[];
  /** Recent attempts of each integration, in the order of `integrations`. */
  attempts: IntegrationAttempt[][];
  values: Record<string, string | undefined>;
  fieldErrors: Record<string, string>;
}): Record<string, unknown> {
  return {
    form: input.form,
    integrations: input.integrations.map((integration, i) => ({ ...integration, service: shownSettings(integration), attempts: input.attempts[i] ?? [] })),
    kinds: INTEGRATION_FORMS,
    serviceKinds: SERVICE_FORMS,
    serviceKindNames: SERVICE_FORMS.map((k) => k.kind),
    kindLabels: INTEGRATION_LABELS,
    max: MAX_INTEGRATIONS_PER_FORM,
    values: input.values,
    fieldErrors: input.fieldErrors,
  };
}
