import type { Form } from '../../../../features/forms/form.types.js';
import { MAX_INTEGRATIONS_PER_FORM, type Integration, type IntegrationAttempt } from '../../../../features/integrations/integration.types.js';

/** The add form of each kind: which fields it asks for, in the owner's words. */
export const INTEGRATION_FORMS = [
  { kind: 'slack', label: 'Slack', url: 'Incoming webhook URL', urlPlaceholder: 'https://hooks.slack.com/services/…', help: 'Mattermost and Rocket.Chat incoming webhooks take this format too.' },
  { kind: 'discord', label: 'Discord', url: 'Webhook URL', urlPlaceholder: 'https://discord.com/api/webhooks/…', help: 'Server Settings → Integrations → Webhooks → Copy Webhook URL.' },
  { kind: 'telegram', label: 'Telegram', token: 'Bot token', tokenPlaceholder: '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0', chatId: true, help: 'The token comes from @BotFather; add the bot to the chat first.' },
  { kind: 'teams', label: 'Microsoft Teams', url: 'Workflows webhook URL', urlPlaceholder: 'https://….logic.azure.com/workflows/…', help: 'Channel → Workflows → "Post to a channel when a webhook request is received".' },
  { kind: 'ntfy', label: 'ntfy', url: 'Topic URL', urlPlaceholder: 'https://ntfy.sh/your-secret-topic', token: 'Access token (optional)', tokenPlaceholder: 'tk_…', help: 'Pick a topic name nobody can guess; a token only for protected topics.' },
] as const;

export const INTEGRATION_LABELS: Record<string, string> = Object.fromEntries(INTEGRATION_FORMS.map((k) => [k.kind, k.label]));

/** A form's Integrations page: each integration with its recent attempts, and the add forms. */
export function integrationsPageModel(input: {
  form: Form;
  integrations: Integration[];
  /** Recent attempts of each integration, in the order of `integrations`. */
  attempts: IntegrationAttempt[][];
  values: { kind?: string; name?: string; chatId?: string; url?: string; token?: string };
  fieldErrors: Record<string, string>;
}): Record<string, unknown> {
  return {
    form: input.form,
    integrations: input.integrations.map((integration, i) => ({ ...integration, attempts: input.attempts[i] ?? [] })),
    kinds: INTEGRATION_FORMS,
    kindLabels: INTEGRATION_LABELS,
    max: MAX_INTEGRATIONS_PER_FORM,
    values: input.values,
    fieldErrors: input.fieldErrors,
  };
}
