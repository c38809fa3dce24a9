import { AppError, notFound, preconditionFailed, validationFailed } from '../../platform/errors.js';
import { FORM_SETTING_NAMES, SECRET_SETTING_NAMES, type FormInput, type FormService } from '../forms/form.service.js';
import { formToSettingsView, type Form } from '../forms/form.types.js';
import type { IntegrationChanges, IntegrationService, NewIntegrationInput } from '../integrations/integration.service.js';
import type { Integration } from '../integrations/integration.types.js';
import { parseRecipientList, type NotificationService } from '../notifications/notification.service.js';
import type { SubmissionLifecycleService } from '../retention/retention.service.js';
import { etagOf, ifMatchHolds, type ManagedForm, type Tagged } from './form-config.types.js';

/** What a write may give for a form; every part optional on a change, `name` required to create. */
export interface ManagedFormInput {
  name?: string | undefined;
  isActive?: boolean | 0 | 1 | undefined;
  key?: string | null | undefined;
  settings?: Record<string, unknown> | undefined;
  recipients?: string[] | undefined;
}

/** Settings the API's `settings` object holds: all but the two shown beside it. */
const SETTING_NAMES = new Set(FORM_SETTING_NAMES.filter((n) => n !== 'name' && n !== 'isActive'));
const SECRETS = new Set<string>(SECRET_SETTING_NAMES);
/** The form's own fields: errors about anything else are about a setting. */
const TOP_LEVEL = new Set(['name', 'isActive', 'key']);

/** The integration as the API shows it: the revision stays inside (the ETag covers it). */
function integrationResource(integration: Integration): Omit<Integration, 'revision'> {
  const { revision: _revision, ...shown } = integration;
  return shown;
}

/**
 * Forms and their integrations as whole resources for the write API and configuration as code
 * (docs/api.md, Writes): a form with its settings and recipients, ETags over what each shows,
 * and writes that hold only when the resource is still as the client read it.
 */
export class FormConfigService {
  constructor(
    private readonly forms: FormService,
    private readonly notifications: NotificationService,
    private readonly integrations: IntegrationService,
    private readonly lifecycle: SubmissionLifecycleService,
  ) {}

  private async tagForm(form: Form): Promise<Tagged<ManagedForm>> {
    const recipients = (await this.notifications.listRecipients(form.id)).map((r) => r.address);
    const resource: ManagedForm = {
      id: form.id,
      key: form.key,
      name: form.name,
      isActive: form.isActive ? 1 : 0,
      createdAt: form.createdAt,
      updatedAt: form.updatedAt,
      settings: { ...formToSettingsView(form), notifyMode: form.notifyMode },
      recipients,
    };
    return { resource, etag: etagOf(resource, form.revision) };
  }

  async getForm(accountId: string, formId: string): Promise<Tagged<ManagedForm>> {
    return this.tagForm(await this.forms.getFormOfAccount(accountId, formId));
  }

  async createForm(accountId: string, input: ManagedFormInput): Promise<Tagged<ManagedForm>> {
    const recipients = input.recipients === undefined ? undefined : this.checkRecipients(input.recipients);
    const form = await withApiFieldNames(() => this.forms.createForm(accountId, { ...this.toFormInput(input), name: input.name as string }));
    if (recipients !== undefined) await this.notifications.setRecipients(form.id, recipients, { verified: false, accountId });
    return this.tagForm(await this.forms.getForm(form.id));
  }

  /**
   * Changes a form as one write: its revision must still be the one whose ETag `ifMatch` names,
   * else precondition_failed (two writers holding one ETag: the second is refused).
   */
  async updateForm(accountId: string, formId: string, input: ManagedFormInput, ifMatch?: string): Promise<Tagged<ManagedForm>> {
    const form = await this.forms.getFormOfAccount(accountId, formId);
    const current = await this.tagForm(form);
    if (!ifMatchHolds(ifMatch, current.etag)) throw preconditionFailed('The form');
    const recipients = input.recipients === undefined ? undefined : this.checkRecipients(input.recipients);
    // Always one conditional write, a change of recipients only too: two writers meet there.
    await withApiFieldNames(() => this.forms.updateForm(form.id, this.toFormInput(input), accountId, { expectedRevision: form.revision }));
    if (recipients !== undefined) await this.notifications.setRecipients(form.id, recipients, { verified: false, accountId });
    return this.tagForm(await this.forms.getForm(form.id));
  }

  async deleteForm(accountId: string, formId: string, ifMatch?: string): Promise<void> {
    const current = await this.getForm(accountId, formId);
    if (!ifMatchHolds(ifMatch, current.etag)) throw preconditionFailed('The form');
    await this.lifecycle.deleteForm(current.resource.id, accountId);
  }

  async listIntegrations(accountId: string, formId: string): Promise<Array<Omit<Integration, 'revision'>>> {
    return (await this.integrations.listIntegrations(formId, accountId)).map(integrationResource);
  }

  async getIntegration(accountId: string, formId: string, integrationId: string): Promise<Tagged<Omit<Integration, 'revision'>>> {
    const integration = await this.integrations.getIntegration(integrationId, accountId);
    // Reached through another form of the account: as unknown as a missing one.
    if (integration.formId !== formId) throw notFound('Integration');
    const resource = integrationResource(integration);
    return { resource, etag: etagOf(resource, integration.revision) };
  }

  async addIntegration(accountId: string, formId: string, input: NewIntegrationInput): Promise<Tagged<Omit<Integration, 'revision'>>> {
    const integration = await this.integrations.addIntegration(formId, input, accountId);
    const resource = integrationResource(integration);
    return { resource, etag: etagOf(resource, integration.revision) };
  }

  async updateIntegration(accountId: string, formId: string, integrationId: string, input: IntegrationChanges, ifMatch?: string): Promise<Tagged<Omit<Integration, 'revision'>>> {
    const before = await this.integrations.getIntegration(integrationId, accountId);
    if (before.formId !== formId) throw notFound('Integration');
    if (!ifMatchHolds(ifMatch, etagOf(integrationResource(before), before.revision))) throw preconditionFailed('The integration');
    const integration = await this.integrations.updateIntegration(integrationId, input, accountId, { expectedRevision: before.revision });
    const resource = integrationResource(integration);
    return { resource, etag: etagOf(resource, integration.revision) };
  }

  async removeIntegration(accountId: string, formId: string, integrationId: string, ifMatch?: string): Promise<void> {
    const current = await this.getIntegration(accountId, formId, integrationId);
    if (!ifMatchHolds(ifMatch, current.etag)) throw preconditionFailed('The integration');
    await this.integrations.removeIntegration(integrationId, accountId);
  }

  private checkRecipients(addresses: string[]): string[] {
    try {
      return parseRecipientList(addresses);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') throw validationFailed(err.message, { recipients: err.fieldErrors?.notify ?? err.message });
      throw err;
    }
  }

  /**
   * The form service's input: settings by name (unknown ones refused by name); a secret given as
   * `set`, the way it is shown, keeps its value, so that what was read can be written back.
   */
  private toFormInput(input: ManagedFormInput): FormInput {
    const settings: Record<string, unknown> = {};
    const unknown: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.settings ?? {})) {
      if (!SETTING_NAMES.has(name)) unknown[`settings.${name}`] = 'is not a setting of a form';
      else if (!(SECRETS.has(name) && value === 'set')) settings[name] = value;
    }
    if (Object.keys(unknown).length > 0) throw validationFailed('The form has no such setting.', unknown);
    return {
      ...(settings as FormInput),
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.isActive !== undefined ? { isActive: input.isActive === true || input.isActive === 1 } : {}),
      ...(input.key !== undefined ? { key: input.key } : {}),
    };
  }
}

/** The form service names a setting by itself; the API's body holds settings under `settings`. */
async function withApiFieldNames<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'validation_failed' || !err.fieldErrors) throw err;
    const fieldErrors = Object.fromEntries(Object.entries(err.fieldErrors).map(([field, message]) => [TOP_LEVEL.has(field) || field.startsWith('settings.') ? field : `settings.${field}`, message]));
    throw validationFailed(err.message, fieldErrors);
  }
}
