import { findServiceKind } from '../integrations/integration.service.js';
import type { ChatKind } from '../integrations/integration.types.js';
import { parseConfigFile, resolveSecrets, type ConfigFormat, type ResolvedForm } from './config-file.js';
import { SECRET_SETTINGS, type ConfigFile, type FormEntry, type IntegrationEntry } from './config-file.schema.js';
import { planConfig, type ConfigPlan, type FormPlan, type PlanOptions } from './config-plan.js';
import type { AccountState, ConfigTarget, ConfigWriter, FormState, IntegrationState } from './config.types.js';

export interface ConfigSource {
  text: string;
  format: ConfigFormat;
  /** Where the `${VARIABLE}` references are read. */
  environment: Readonly<Record<string, string | undefined>>;
}

export interface ExportResult {
  file: ConfigFile;
  /** Secrets set on the server that the file leaves out: a file never holds one. */
  notes: string[];
}

/**
 * Configuration as code (docs/config-as-code.md): one plan, computed from a file and what a
 * target holds, shown (`plan`) or carried out (`apply`), and the file written back from what
 * exists (`export`). The target is the database here or a server's API.
 */
export class ConfigAsCodeService {
  /** Reads and checks the file, resolves its secrets, and compares it with the target. */
  async plan(source: ConfigSource, target: ConfigTarget, options: PlanOptions): Promise<{ plan: ConfigPlan; forms: ResolvedForm[] }> {
    const file = parseConfigFile(source.text, source.format);
    // Every variable is resolved before the server is asked anything, so a missing one writes nothing.
    const forms = resolveSecrets(file, source.environment);
    const state = await target.read(file.account);
    return { plan: planConfig(forms, state, options), forms };
  }

  /** Plans, then makes the plan's changes. */
  async apply(source: ConfigSource, target: ConfigTarget, options: PlanOptions): Promise<ConfigPlan> {
    const { plan } = await this.plan(source, target, options);
    if (plan.changes === 0) return plan;
    await target.write(plan.accountId, async (writer) => {
      for (const form of plan.forms) {
        if (form.action === 'create') {
          const id = await writer.createForm(form.key, { ...form.write, name: form.name });
          await applyParts(writer, id, form);
        } else if (form.action === 'update') {
          if (Object.keys(form.write).length > 0) await writer.updateForm({ id: form.id!, etag: form.etag }, form.write);
          await applyParts(writer, form.id!, form);
        }
      }
    });
    for (const form of plan.forms) if (form.action === 'delete') await target.deleteForm({ id: form.id!, etag: form.etag });
    return plan;
  }

  /** The file for what the account holds now. */
  async export(target: ConfigTarget, account: string | undefined): Promise<ExportResult> {
    return exportState(await target.read(account));
  }
}

/** Recipients, integrations and hooks of one form: what goes away first, then what is added. */
async function applyParts(writer: ConfigWriter, formId: string, form: FormPlan): Promise<void> {
  if (form.recipients) await writer.setRecipients(formId, form.recipients.list);
  // Removals first: a form has at most 10 integrations, and the file may swap one for another.
  for (const change of form.integrations) if (change.action === 'remove') await writer.removeIntegration(formId, { id: change.id!, etag: change.etag });
  for (const change of form.integrations) {
    if (change.action === 'update') await writer.updateIntegration(formId, { id: change.id!, etag: change.etag }, change.changes!);
    if (change.action === 'add') await writer.addIntegration(formId, change.input!);
  }
  for (const hook of form.hooks.remove) await writer.removeHook(hook.id);
  for (const url of form.hooks.add) await writer.addHook(formId, url);
}

function exportForm(form: FormState, notes: string[]): FormEntry {
  const settings: Record<string, unknown> = { ...form.settings };
  for (const name of SECRET_SETTINGS) {
    if (!form.secrets[name].set) settings[name] = null;
    else notes.push(`form ${form.key}: ${name} is set and left out of the file; add "${name}": "\${VARIABLE}" to manage it`);
  }
  return {
    key: form.key,
    name: form.name,
    settings,
    recipients: form.recipients,
    integrations: form.integrations.map((i) => exportIntegration(form, i, notes)),
    hooks: form.hooks.map((h) => ({ targetUrl: h.targetUrl })),
  };
}

/** An integration as the file writes it: its settings, never its secrets (a note says how to add them). */
function exportIntegration(form: FormState, i: IntegrationState, notes: string[]): IntegrationEntry {
  const kind = findServiceKind(i.kind);
  if (!kind) {
    if (i.url.set || i.token.set) notes.push(`form ${form.key}: the ${i.kind} integration "${i.name}" keeps its secrets; add "url"/"token": "\${VARIABLE}" to manage them`);
    return { kind: i.kind as ChatKind, name: i.name, enabled: i.enabled, ...(i.chatId !== null && { chatId: i.chatId }) };
  }
  const set = kind.fields.filter((f) => f.secret && i.secrets[f.name]?.set).map((f) => `"${f.name}"`);
  if (set.length > 0) notes.push(`form ${form.key}: the ${i.kind} integration "${i.name}" keeps its secrets; add ${set.join('/')}: "\${VARIABLE}" to manage them`);
  return { kind: i.kind, name: i.name, enabled: i.enabled, ...i.settings };
}

export function exportState(state: AccountState): ExportResult {
  const notes: string[] = [];
  const forms = [...state.forms].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((form) => exportForm(form, notes));
  return { file: { account: state.email, forms }, notes };
}
