import type { AuditService } from '../audit/audit.service.js';
import type { Config } from '../../platform/config.js';
import type { Executor, Trx } from '../../platform/db/database.js';
import type { IntegrationRow } from '../../platform/db/schema.js';
import { notFound, preconditionFailed, validationFailed } from '../../platform/errors.js';
import type { FormService } from '../forms/form.service.js';
import { targetUrlProblem } from '../../platform/lib/target-url.js';
import { newId } from '../../platform/lib/ids.js';
import { canBeKey, isStorableText } from '../../platform/lib/text.js';
import { nowIso } from '../../platform/lib/time.js';
import {
  attemptItemsOfIntegration,
  countIntegrationsOfForm,
  deleteIntegrationRow,
  findFormsWithDisabledIntegrations,
  findIntegrationRow,
  findMessageIdOfAccount,
  insertIntegration,
  integrationRowToIntegration,
  listIntegrationRowsOfForm,
  listMessageRowsOfSubmission,
  setIntegrationEnabled,
  updateIntegrationRow,
} from './integration.repository.js';
import { MAX_INTEGRATIONS_PER_FORM, type ChatKind, type Integration, type IntegrationAttempt, type IntegrationTarget } from './integration.types.js';
import type { KindField, KindInput } from './service-kind.js';
import { findServiceKind, INTEGRATION_KINDS } from './service-kinds.js';

// Other features (configuration as code) read the kinds' declared fields through this service.
export { findServiceKind, SERVICE_KINDS } from './service-kinds.js';
export type { KindField, ServiceKind } from './service-kind.js';
import type { OutboxService } from '../outbox/outbox.service.js';
import type { MessageLogEntry } from '../outbox/outbox.types.js';

const KIND_NAMES: Record<string, string> = { slack: 'Slack', discord: 'Discord', telegram: 'Telegram', teams: 'Teams', ntfy: 'ntfy' };
const kindName = (kind: string) => KIND_NAMES[kind] ?? findServiceKind(kind)?.label ?? kind;

/** The chat kinds' inputs by name; a service kind's settings by its fields' names (service-kind.ts). */
export interface NewIntegrationInput extends KindInput {
  kind: string;
  name?: string | undefined;
  url?: string | undefined;
  token?: string | undefined;
  chatId?: string | undefined;
}

/**
 * What a change of an integration may give; undefined keeps a value, null clears a secret. A
 * service kind's settings (its fields by name) are given together: the ones it shows in full, its
 * secrets left out (or `set`) to keep them.
 */
export interface IntegrationChanges {
  kind?: string | undefined;
  name?: string | undefined;
  enabled?: boolean | undefined;
  url?: string | null | undefined;
  token?: string | null | undefined;
  chatId?: string | null | undefined;
  [field: string]: string | string[] | boolean | null | undefined;
}

/** A stored setting as the owner's input spells it again (a key file's JSON, a list's values). */
const asInput = (value: unknown): string | string[] | undefined =>
  value === undefined || value === null ? undefined : typeof value === 'string' ? value : Array.isArray(value) ? value.map(String) : JSON.stringify(value);

/**
 * A stored setting as its field takes it again: a repeated field as its values (a mapping as
 * `field=column` lines), any other as text.
 */
export function storedAsFieldValue(field: KindField, value: unknown): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (field.repeated) {
    if (Array.isArray(value)) return value.map(String);
    if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${String(v)}`);
    return [String(value)];
  }
  return asInput(value) as string;
}

/** The names whose values differ between two settings objects. */
const changedKeys = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));

const parseStored = (json: string | null): Record<string, unknown> => (json === null ? {} : (JSON.parse(json) as Record<string, unknown>));

export interface TestResult {
  sent: boolean;
  status: number | null;
  error: string | null;
}

const KIND_LABELS: Record<ChatKind, string> = {
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
  teams: 'Microsoft Teams',
  ntfy: 'ntfy',
};

const clean = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

/**
 * A form's integrations (docs/integrations.md): up to 10 per form, targets under the hook rules,
 * secrets (URLs, tokens) returned by nothing here once stored. `accountId`, when given, scopes
 * every call to that owner's forms (the dashboard); the CLI acts as the operator.
 */
/**
 * A bot token as @BotFather gives it: the bot's numeric ID, a colon and its secret (35 characters
 * today; any length is taken, since Telegram itself says whether it works on "Send test").
 */
const TELEGRAM_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{1,100}$/;
export const TELEGRAM_TOKEN_EXAMPLE = '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0';

export class IntegrationService {
  constructor(
    private readonly db: Executor,
    private readonly config: Config,
    private readonly forms: FormService,
    private readonly outbox: Pick<OutboxService, 'sendAgain' | 'sendTest' | 'messageLog' | 'listNewestAttempts'>,
    private readonly audit?: AuditService,
  ) {}

  /** The submission's integration messages, as its page lists them (the account's forms only). */
  async listMessagesOfSubmission(accountId: string, submissionId: string): Promise<MessageLogEntry[]> {
    const messages = await listMessageRowsOfSubmission(this.db, accountId, submissionId);
    return this.outbox.messageLog(
      messages.map((m) => ({
        channel: 'integration',
        id: m.id,
        kind: `${kindName(m.kind)} ${findServiceKind(m.kind)?.item ?? 'message'}`,
        target: m.name,
        state: m.state,
        attempts: Number(m.attempts),
        createdAt: m.created_at,
        resendable: true,
        nextAttemptAt: m.next_attempt_at,
      })),
    );
  }

  /** "Send again": one new attempt through the outbox. */
  async sendMessageAgain(accountId: string, messageId: string): Promise<boolean> {
    const id = await findMessageIdOfAccount(this.db, accountId, messageId);
    if (!id) throw notFound('Integration message');
    const sentAgain = (trx: Trx) => this.audit?.record(trx, accountId, 'delivery.sent_again', { type: 'integration_message', id }, { channel: 'integration' }) ?? Promise.resolve();
    return (await this.outbox.sendAgain('integrations', [id], { record: sentAgain })) > 0;
  }

  private async getForm(formId: string, accountId: string | undefined) {
    return accountId === undefined ? this.forms.getForm(formId) : this.forms.getFormOfAccount(accountId, formId);
  }

  private async getRow(id: string, accountId: string | undefined) {
    const row = canBeKey(id) ? await findIntegrationRow(this.db, id) : undefined;
    if (!row) throw notFound('Integration');
    // An integration of another account's form is as unknown as a missing one.
    if (accountId !== undefined && (await this.forms.findForm(row.form_id))?.accountId !== accountId) throw notFound('Integration');
    return row;
  }

  async addIntegration(formId: string, input: NewIntegrationInput, accountId?: string): Promise<Integration> {
    const form = await this.getForm(formId, accountId);
    if (!INTEGRATION_KINDS.includes(input.kind)) {
      throw validationFailed('Unknown integration kind.', { kind: `must be one of ${INTEGRATION_KINDS.join(', ')}` });
    }
    const row = findServiceKind(input.kind) ? this.serviceRow(form.id, input) : this.chatRow(form.id, input);
    if ((await countIntegrationsOfForm(this.db, form.id)) >= MAX_INTEGRATIONS_PER_FORM) {
      throw validationFailed(`A form has at most ${MAX_INTEGRATIONS_PER_FORM} integrations.`, { kind: `at most ${MAX_INTEGRATIONS_PER_FORM} per form` });
    }
    await this.db.transaction().execute(async (trx) => {
      await insertIntegration(trx, row);
      await this.audit?.record(trx, form.accountId, 'integration.added', { type: 'integration', id: row.id, label: row.name }, { formId: form.id, form: form.name, kind: row.kind, name: row.name });
    });
    return integrationRowToIntegration(row);
  }

  /** A service kind's integration: its settings as the kind checks them, the secrets apart. */
  private serviceRow(formId: string, input: NewIntegrationInput): IntegrationRow {
    const kind = findServiceKind(input.kind)!;
    const name = clean(input.name) ?? kind.label;
    const problems: Record<string, string> = {};
    if (!isStorableText(name)) problems.name = 'must be text without NUL characters';
    else if (name.length > 100) problems.name = 'must be at most 100 characters';
    for (const [field, value] of Object.entries(input)) {
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => v !== undefined && !isStorableText(v))) problems[field] = 'must be text without NUL characters';
    }
    if (Object.keys(problems).length > 0) throw validationFailed('The integration is not valid.', problems);
    const parsed = kind.parse(input, this.config);
    if ('problems' in parsed) throw validationFailed('The integration is not valid.', parsed.problems);
    return {
      id: newId('int'),
      form_id: formId,
      kind: kind.kind,
      name,
      enabled: 1,
      disabled_reason: null,
      url: null,
      token: null,
      chat_id: null,
      settings: JSON.stringify(parsed.settings),
      secrets: JSON.stringify(parsed.secrets),
      created_at: nowIso(),
      revision: 0,
    };
  }

  private chatRow(formId: string, input: NewIntegrationInput): IntegrationRow {
    const kind = input.kind as ChatKind;
    const url = clean(input.url);
    // A token copied from an API address (`…/bot<token>/…`) keeps its `bot` prefix: it is not part of the token.
    const token = kind === 'telegram' ? clean(input.token)?.replace(/^bot(?=\d)/, '') : clean(input.token);
    const chatId = clean(input.chatId);
    const name = clean(input.name) ?? KIND_LABELS[kind];
    const problems: Record<string, string> = {};
    for (const [field, value] of Object.entries({ name, url, token, chatId })) {
      if (value !== undefined && !isStorableText(value)) problems[field] = 'must be text without NUL characters';
    }
    if (Object.keys(problems).length > 0) throw validationFailed('The integration is not valid.', problems);
    if (name.length > 100) problems.name = 'must be at most 100 characters';
    if (kind === 'telegram') {
      if (!token) problems.token = 'required: the bot token from @BotFather';
      else if (!TELEGRAM_TOKEN.test(token)) problems.token = `must be the bot token @BotFather gave, like ${TELEGRAM_TOKEN_EXAMPLE}`;
      if (!chatId) problems.chatId = 'required: the chat ID (a number, or @channelname)';
      else if (!/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,64})$/.test(chatId)) problems.chatId = 'must be a number or @channelname';
      if (url) problems.url = 'not used for Telegram (TELEGRAM_API_URL sets the API)';
    } else {
      const problem = url === undefined ? 'required' : targetUrlProblem(url, this.config.hookAllowPrivateTargets);
      if (problem) problems.url = problem;
      else if (kind === 'ntfy' && new URL(url!).pathname.split('/').filter(Boolean).length === 0) problems.url = 'must name a topic, as in https://ntfy.sh/mytopic';
      if (token && kind !== 'ntfy') problems.token = `not used for ${KIND_LABELS[kind]}`;
      if (token && (token.length > 200 || /[\s\u0000-\u001f]/.test(token))) problems.token = 'must be one line of at most 200 characters';
      if (chatId) problems.chatId = 'used only for Telegram';
    }
    if (Object.keys(problems).length > 0) throw validationFailed('The integration is not valid.', problems);
    return {
      id: newId('int'),
      form_id: formId,
      kind,
      name,
      enabled: 1,
      disabled_reason: null,
      url: url === undefined ? null : new URL(url).href,
      token: token ?? null,
      chat_id: chatId ?? null,
      settings: null,
      secrets: null,
      created_at: nowIso(),
      revision: 0,
    };
  }

  /**
   * Changes an integration's name, settings and secrets (a field left out keeps its value, a
   * secret given as null is cleared) and turns it on or off; the whole is checked again as when
   * adding. With `expectedRevision`, only while it is still at that revision.
   */
  async updateIntegration(id: string, input: IntegrationChanges, accountId?: string, options: { expectedRevision?: number | undefined } = {}): Promise<Integration> {
    const row = await this.getRow(id, accountId);
    const form = await this.forms.getForm(row.form_id);
    if (input.kind !== undefined && input.kind !== row.kind) throw validationFailed('The kind of an integration cannot change.', { kind: `is ${row.kind}: remove the integration and add another` });
    const checked = this.changedRow(row, input);
    const changes = {
      name: checked.name,
      url: checked.url,
      token: checked.token,
      chat_id: checked.chat_id,
      settings: checked.settings,
      secrets: checked.secrets,
      ...(input.enabled === undefined ? {} : { enabled: input.enabled ? 1 : 0, disabled_reason: input.enabled ? null : 'turned off by the owner' }),
    };
    // Names only: secrets never reach the log.
    const changed = [
      ...(['name', 'url', 'token', 'chat_id'] as const).filter((c) => changes[c] !== row[c]).map((c) => (c === 'chat_id' ? 'chatId' : c)),
      ...changedKeys(parseStored(row.settings), parseStored(checked.settings)),
      ...changedKeys(parseStored(row.secrets), parseStored(checked.secrets)),
    ];
    await this.db.transaction().execute(async (trx) => {
      if (!(await updateIntegrationRow(trx, row.id, changes, options.expectedRevision))) throw preconditionFailed('The integration');
      const target = { type: 'integration', id: row.id, label: checked.name };
      if (changed.length > 0) await this.audit?.record(trx, form.accountId, 'integration.updated', target, { formId: form.id, form: form.name, kind: row.kind, changed });
      if (input.enabled !== undefined && (row.enabled === 1) !== input.enabled) {
        await this.audit?.record(trx, form.accountId, input.enabled ? 'integration.enabled' : 'integration.disabled', target, { formId: form.id, form: form.name, kind: row.kind });
      }
    });
    return integrationRowToIntegration((await findIntegrationRow(this.db, row.id))!);
  }

  /** The row an update makes, checked as adding would check it. */
  private changedRow(row: IntegrationRow, input: IntegrationChanges): IntegrationRow {
    const name = typeof input.name === 'string' ? input.name : row.name;
    const kind = findServiceKind(row.kind);
    if (!kind) {
      const pick = (given: unknown, stored: string | null) => (given === undefined ? (stored ?? undefined) : typeof given === 'string' ? given : undefined);
      return this.chatRow(row.form_id, { kind: row.kind, name, url: pick(input.url, row.url), token: pick(input.token, row.token), chatId: pick(input.chatId, row.chat_id) });
    }
    const given = kind.fields.filter((f) => input[f.name] !== undefined);
    // Only the name or the switch: the settings stay as they are.
    if (given.length === 0) return { ...row, name };
    const secrets = parseStored(row.secrets);
    const merged: NewIntegrationInput = { kind: row.kind, name };
    for (const field of kind.fields) {
      const value = input[field.name];
      const keep = field.secret && (value === undefined || value === 'set');
      merged[field.name] = keep ? asInput(secrets[field.name]) : typeof value === 'boolean' || value === null ? undefined : value;
    }
    return this.serviceRow(row.form_id, merged);
  }

  async listIntegrations(formId: string, accountId?: string): Promise<Integration[]> {
    const form = await this.getForm(formId, accountId);
    return (await listIntegrationRowsOfForm(this.db, form.id)).map(integrationRowToIntegration);
  }

  /**
   * The form's integrations with their secrets, for comparing them with a configuration file on
   * this machine (docs/config-as-code.md); nothing shows these values.
   */
  async listIntegrationTargets(formId: string, accountId?: string): Promise<Array<{ integration: Integration; target: IntegrationTarget; secrets: Record<string, unknown> }>> {
    const form = await this.getForm(formId, accountId);
    return (await listIntegrationRowsOfForm(this.db, form.id)).map((row) => ({
      integration: integrationRowToIntegration(row),
      target: { kind: row.kind as ChatKind, url: row.url, token: row.token, chatId: row.chat_id },
      secrets: parseStored(row.secrets),
    }));
  }

  async getIntegration(id: string, accountId?: string): Promise<Integration> {
    return integrationRowToIntegration(await this.getRow(id, accountId));
  }

  async removeIntegration(id: string, accountId?: string): Promise<void> {
    const row = await this.getRow(id, accountId);
    const form = await this.forms.getForm(row.form_id);
    await this.db.transaction().execute(async (trx) => {
      await deleteIntegrationRow(trx, row.id);
      await this.audit?.record(trx, form.accountId, 'integration.removed', { type: 'integration', id: row.id, label: row.name }, { formId: form.id, form: form.name, kind: row.kind, name: row.name });
    });
  }

  /**
   * Turning one on again clears the reason; turning one off has the outbox skip, with the reason,
   * what is queued for it as it comes due.
   */
  async setEnabled(id: string, enabled: boolean, accountId?: string): Promise<Integration> {
    const row = await this.getRow(id, accountId);
    const form = await this.forms.getForm(row.form_id);
    await this.db.transaction().execute(async (trx) => {
      await setIntegrationEnabled(trx, row.id, enabled, enabled ? null : 'turned off by the owner');
      if ((row.enabled === 1) === enabled) return;
      const action = enabled ? 'integration.enabled' : 'integration.disabled';
      await this.audit?.record(trx, form.accountId, action, { type: 'integration', id: row.id, label: row.name }, { formId: form.id, form: form.name, kind: row.kind });
    });
    return integrationRowToIntegration((await findIntegrationRow(this.db, row.id))!);
  }

  /** The integration's newest attempts, its test sends (logged under its own ID) among them. */
  async listAttempts(id: string, limit: number, accountId?: string): Promise<IntegrationAttempt[]> {
    const row = await this.getRow(id, accountId);
    return (await this.outbox.listNewestAttempts(attemptItemsOfIntegration(this.db, row.id), limit)).map((a) => ({
      id: a.id,
      attemptedAt: a.attemptedAt,
      outcome: a.outcome as IntegrationAttempt['outcome'],
      status: a.status,
      error: a.error,
      test: a.itemId === row.id,
    }));
  }

  /** The forms among `formIds` that have a disabled integration. */
  async formsWithDisabledIntegrations(formIds: string[]): Promise<Set<string>> {
    return findFormsWithDisabledIntegrations(this.db, formIds);
  }

  /** Sends a sample message now through the same formats and SSRF-safe sender; the outbox logs it with the integration's attempts. */
  async sendTest(id: string, accountId?: string): Promise<TestResult> {
    const row = await this.getRow(id, accountId);
    const result = await this.outbox.sendTest('integrations', row.id);
    // Removed meanwhile: as unknown as before.
    if (!result) throw notFound('Integration');
    return { sent: result.sent, status: result.status, error: result.error };
  }
}
