import type { AccountService } from '../accounts/account.service.js';
import type { FormService } from '../forms/form.service.js';
import type { HookService } from '../hooks/hook.service.js';
import type { IntegrationService } from '../integrations/integration.service.js';
import type { NotificationService } from '../notifications/notification.service.js';
import type { SubmissionLifecycleService } from '../retention/retention.service.js';
import { validationFailed } from '../../platform/errors.js';
import { formSecrets, formToFileSettings, readSecret, readStoredSecret, serviceFields } from './config-state.js';
import type { AccountState, ConfigTarget, ConfigWriter, FormState } from './config.types.js';

/** The services the writes go through; inside a transaction, ones that all write in it. */
export interface ConfigWriteServices {
  forms: FormService;
  notifications: NotificationService;
  integrations: IntegrationService;
  hooks: HookService;
}

/** Runs `run` with services whose every write joins one transaction, committed when it returns. */
export type ConfigTransaction = (run: (services: ConfigWriteServices) => Promise<void>) => Promise<void>;

export interface LocalConfigServices extends ConfigWriteServices {
  accounts: AccountService;
  lifecycle: SubmissionLifecycleService;
}

function writerOf(s: ConfigWriteServices, accountId: string): ConfigWriter {
  return {
    async createForm(key, settings) {
      return (await s.forms.createForm(accountId, { ...settings, key })).id;
    },
    async updateForm(form, settings) {
      await s.forms.updateForm(form.id, settings, accountId);
    },
    async setRecipients(formId, addresses) {
      // Set by the operator, as `formgate forms update --notify` does: no verification email.
      await s.notifications.setRecipients(formId, addresses, { verified: true, accountId });
    },
    async addIntegration(formId, { enabled, fields, ...integration }) {
      const added = await s.integrations.addIntegration(formId, { ...integration, ...fields }, accountId);
      if (enabled === false) await s.integrations.setEnabled(added.id, false, accountId);
    },
    async updateIntegration(_formId, integration, { fields, ...changes }) {
      await s.integrations.updateIntegration(integration.id, { ...changes, ...fields }, accountId);
    },
    async removeIntegration(_formId, integration) {
      await s.integrations.removeIntegration(integration.id, accountId);
    },
    async addHook(formId, targetUrl) {
      await s.hooks.createHook(accountId, { formId, targetUrl });
    },
    async removeHook(hookId) {
      await s.hooks.deleteHook(accountId, hookId);
    },
  };
}

/**
 * The database on this machine: secrets are compared by value, and every write of an apply is
 * one transaction. A form the file drops is deleted afterwards, the way `formgate forms delete`
 * does it: its submissions go in batches, which one transaction would hold too long.
 */
export class LocalConfigTarget implements ConfigTarget {
  readonly readsSecrets = true;

  constructor(
    private readonly services: LocalConfigServices,
    private readonly transaction: ConfigTransaction,
  ) {}

  async read(account: string | undefined): Promise<AccountState> {
    if (account === undefined) {
      throw validationFailed('Which account? Name it in the file ("account": ID or email) or on the command line.', { account: 'required' });
    }
    const s = this.services;
    const owner = await s.accounts.getAccountByIdOrEmail(account);
    const hooks = await s.hooks.listHooks(owner.id);
    const forms: FormState[] = [];
    for (const form of await s.forms.listForms(owner.id)) {
      const integrations = await s.integrations.listIntegrationTargets(form.id);
      forms.push({
        id: form.id,
        key: form.key ?? form.id,
        name: form.name,
        settings: formToFileSettings(form),
        secrets: formSecrets(form),
        recipients: (await s.notifications.listRecipients(form.id)).map((r) => r.address).sort(),
        integrations: integrations.map(({ integration, target, secrets }) => ({
          id: integration.id,
          kind: integration.kind,
          name: integration.name,
          enabled: integration.enabled,
          chatId: integration.chatId,
          url: readSecret(target.url),
          token: readSecret(target.token),
          ...serviceFields(integration.kind, integration.settings, (name) => readStoredSecret(secrets[name])),
        })),
        hooks: hooks.filter((h) => h.formId === form.id).map((h) => ({ id: h.id, targetUrl: h.targetUrl })),
      });
    }
    return { accountId: owner.id, email: owner.email, forms };
  }

  write(accountId: string, run: (writer: ConfigWriter) => Promise<void>): Promise<void> {
    return this.transaction((scoped) => run(writerOf(scoped, accountId)));
  }

  async deleteForm(form: { id: string }): Promise<void> {
    await this.services.lifecycle.deleteForm(form.id);
  }
}
