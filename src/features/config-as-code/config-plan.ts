import type { FormSettingsInput } from '../forms/form.service.js';
import { findServiceKind, type ServiceKind } from '../integrations/integration.service.js';
import type { ResolvedForm } from './config-file.js';
import { SECRET_SETTINGS, isChatEntry, type ChatIntegrationEntry, type FileSettings, type IntegrationEntry, type ServiceIntegrationEntry } from './config-file.schema.js';
import type { AccountState, FormState, HookState, IntegrationState, IntegrationUpdate, NewIntegration, SecretState } from './config.types.js';

export interface SettingChange {
  name: string;
  from: unknown;
  to: unknown;
}

/** A secret's change, never its value. `not compared`: the target cannot read it (through the API). */
export interface SecretChange {
  name: string;
  change: 'set' | 'changed' | 'cleared' | 'written again' | 'not compared';
}

export interface IntegrationChange {
  action: 'add' | 'update' | 'remove';
  kind: string;
  name: string;
  /** The integration there is now (update, remove): it keeps its ID. */
  id?: string;
  /** Its ETag, where the target checks one. */
  etag?: string | undefined;
  /** What is added. */
  input?: NewIntegration;
  /** What an update changes (secrets included: never printed). */
  changes?: IntegrationUpdate;
  /** What an update changes, as printed: names, and secrets only as changed. */
  reason?: string;
}

export interface FormPlan {
  /** `untouched`: on the server, not in the file, and kept (no `--prune`). */
  action: 'create' | 'update' | 'unchanged' | 'delete' | 'untouched';
  key: string;
  name: string;
  id?: string;
  etag?: string | undefined;
  settings: SettingChange[];
  secrets: SecretChange[];
  recipients?: { add: string[]; remove: string[]; list: string[] };
  integrations: IntegrationChange[];
  hooks: { add: string[]; remove: HookState[] };
  /** What the form service is given: the changed settings only. */
  write: FormSettingsInput;
}

export interface ConfigPlan {
  accountId: string;
  forms: FormPlan[];
  /** Forms created, updated or deleted: 0 means applying changes nothing. */
  changes: number;
}

export interface PlanOptions {
  /** Delete the forms the file does not name. */
  prune: boolean;
  /** Write every secret of the file again where the target cannot compare them (through the API). */
  writeSecrets: boolean;
}

/** One canonical text per value, so that key order never makes a difference. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** URLs as the services store them, so that a trailing slash or a host's case is no change. */
function normalUrl(value: string): string {
  try {
    return new URL(value.trim()).href;
  } catch {
    return value.trim();
  }
}

const normalAddresses = (addresses: string[]) => [...new Set(addresses.map((a) => a.trim().toLowerCase()).filter((a) => a !== ''))].sort();

function normalSecret(part: 'url' | 'token', kind: string, value: string): string {
  if (part === 'url') return normalUrl(value);
  return kind === 'telegram' ? value.trim().replace(/^bot(?=\d)/, '') : value.trim();
}

type SecretVerdict = 'unchanged' | 'set' | 'changed' | 'cleared' | 'written again' | 'not compared';

/** How a secret of the file compares with the one there is, and whether it is written. */
function compareSecret(wanted: string | null, current: SecretState, writeSecrets: boolean, normal: (v: string) => string = (v) => v): SecretVerdict {
  if (wanted === null) return current.set ? 'cleared' : 'unchanged';
  if (!current.set) return 'set';
  if (current.value === undefined) return writeSecrets ? 'written again' : 'not compared';
  return normal(current.value) === normal(wanted) ? 'unchanged' : 'changed';
}

const writes = (verdict: SecretVerdict) => verdict === 'set' || verdict === 'changed' || verdict === 'cleared' || verdict === 'written again';

function planSettings(wanted: FileSettings, current: FormState | undefined, options: PlanOptions, plan: FormPlan): void {
  const write = plan.write as Record<string, unknown>;
  for (const [name, value] of Object.entries(wanted)) {
    if (value === undefined) continue;
    if ((SECRET_SETTINGS as readonly string[]).includes(name)) {
      const secret = current?.secrets[name as (typeof SECRET_SETTINGS)[number]] ?? { set: false };
      const verdict = current ? compareSecret(value as string | null, secret, options.writeSecrets) : value === null ? 'unchanged' : 'set';
      if (verdict !== 'unchanged') plan.secrets.push({ name, change: verdict });
      if (writes(verdict)) write[name] = value;
      continue;
    }
    if (name === 'autoReply') {
      const parts = value as NonNullable<FileSettings['autoReply']>;
      const before = current?.settings.autoReply as Record<string, unknown> | undefined;
      const changed: Record<string, unknown> = {};
      for (const [part, partValue] of Object.entries(parts)) {
        if (partValue === undefined || (before && same(before[part], partValue))) continue;
        plan.settings.push({ name: `autoReply.${part}`, from: before?.[part], to: partValue });
        changed[part] = partValue;
      }
      if (Object.keys(changed).length > 0) write.autoReply = changed;
      continue;
    }
    const before = current?.settings[name as keyof FormState['settings']];
    if (current && same(before, value)) continue;
    plan.settings.push({ name, from: before, to: value });
    write[name] = value;
  }
}

const integrationId = (i: { kind: string; name: string }) => `${i.kind}\u0000${i.name}`;

/**
 * A service's secret as stored is what its kind kept of the value: an object (a key file) only
 * the parts it needs. The same when the parts it kept are the same.
 */
function sameServiceSecret(stored: string, wanted: string): boolean {
  const asObject = (v: string): Record<string, unknown> | undefined => {
    try {
      const parsed = JSON.parse(v) as unknown;
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const kept = asObject(stored);
  const given = asObject(wanted);
  if (!kept || !given) return stored.trim() === wanted.trim();
  return Object.keys(kept).every((part) => given[part] === undefined || same(given[part], kept[part]));
}

const fieldValue = (value: string | string[]) => (Array.isArray(value) ? value.map((v) => v.trim()) : value.trim());

function toNewIntegration(entry: IntegrationEntry): NewIntegration {
  if (isChatEntry(entry)) return { kind: entry.kind, name: entry.name, url: entry.url, token: entry.token, chatId: entry.chatId, enabled: entry.enabled };
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(entry)) if (name !== 'kind' && name !== 'name' && name !== 'enabled' && (typeof value === 'string' || Array.isArray(value))) fields[name] = value;
  return { kind: entry.kind, name: entry.name, enabled: entry.enabled, fields };
}

/** What changes of a chat channel that stays: its chat ID, its secrets. */
function chatChanges(entry: ChatIntegrationEntry, there: IntegrationState, options: PlanOptions, changes: IntegrationUpdate, reasons: string[]): void {
  if (entry.chatId !== undefined && entry.chatId.trim() !== (there.chatId ?? '')) {
    changes.chatId = entry.chatId;
    reasons.push(`chatId ${JSON.stringify(there.chatId)} → ${JSON.stringify(entry.chatId)}`);
  }
  for (const part of ['url', 'token'] as const) {
    const value = entry[part];
    if (value === undefined) continue;
    const verdict = compareSecret(value, there[part], options.writeSecrets, (v) => normalSecret(part, entry.kind, v));
    if (writes(verdict)) {
      changes[part] = value;
      reasons.push(`${part}: secret ${verdict}`);
    }
  }
}

/**
 * What changes of a service's integration that stays: its settings old → new, its secrets as
 * set or changed. The service takes the settings together, so an update gives every one.
 */
function serviceChanges(kind: ServiceKind, entry: ServiceIntegrationEntry, there: IntegrationState, options: PlanOptions, changes: IntegrationUpdate, reasons: string[]): void {
  const fields: Record<string, string | string[]> = {};
  let changed = false;
  for (const field of kind.fields) {
    const value = entry[field.name];
    if (field.secret) {
      if (typeof value !== 'string') continue;
      const current = there.secrets[field.name] ?? { set: false };
      const verdict = current.set && current.value !== undefined ? (sameServiceSecret(current.value, value) ? 'unchanged' : 'changed') : compareSecret(value, current, options.writeSecrets);
      if (writes(verdict)) {
        fields[field.name] = value;
        changed = true;
        reasons.push(`${field.name}: secret ${verdict}`);
      }
      continue;
    }
    const before = there.settings[field.name];
    if (typeof value === 'string' || Array.isArray(value)) {
      fields[field.name] = value;
      if (!same(fieldValue(value), before === undefined ? undefined : fieldValue(before))) {
        changed = true;
        reasons.push(`${field.name} ${JSON.stringify(before ?? null)} → ${JSON.stringify(value)}`);
      }
    } else if (before !== undefined) fields[field.name] = before;
  }
  if (changed) changes.fields = fields;
}

function planIntegrations(wanted: IntegrationEntry[], current: IntegrationState[], options: PlanOptions): IntegrationChange[] {
  const changeList: IntegrationChange[] = [];
  const existing = new Map<string, IntegrationState>();
  for (const integration of current) if (!existing.has(integrationId(integration))) existing.set(integrationId(integration), integration);
  const kept = new Set<string>();
  for (const entry of wanted) {
    const there = existing.get(integrationId(entry));
    if (!there) {
      changeList.push({ action: 'add', kind: entry.kind, name: entry.name, input: toNewIntegration(entry) });
      continue;
    }
    kept.add(there.id);
    const changes: IntegrationUpdate = {};
    const reasons: string[] = [];
    const kind = findServiceKind(entry.kind);
    if (isChatEntry(entry)) chatChanges(entry, there, options, changes, reasons);
    else if (kind) serviceChanges(kind, entry, there, options, changes, reasons);
    if (entry.enabled !== undefined && entry.enabled !== there.enabled) {
      changes.enabled = entry.enabled;
      reasons.push(entry.enabled ? 'turned on' : 'turned off');
    }
    if (reasons.length > 0) changeList.push({ action: 'update', kind: entry.kind, name: entry.name, id: there.id, etag: there.etag, changes, reason: reasons.join(', ') });
  }
  for (const integration of current) {
    if (!kept.has(integration.id)) changeList.push({ action: 'remove', kind: integration.kind, name: integration.name, id: integration.id, etag: integration.etag });
  }
  return changeList;
}

function planHooks(wanted: Array<{ targetUrl: string }>, current: HookState[]): FormPlan['hooks'] {
  const urls = [...new Set(wanted.map((h) => normalUrl(h.targetUrl)))];
  const kept = new Set<string>();
  const remove: HookState[] = [];
  for (const hook of current) {
    // A second hook to the same URL is one too many for the file, which lists each URL once.
    if (urls.includes(hook.targetUrl) && !kept.has(hook.targetUrl)) kept.add(hook.targetUrl);
    else remove.push(hook);
  }
  return { add: urls.filter((url) => !kept.has(url)), remove };
}

function planForm(entry: ResolvedForm, current: FormState | undefined, options: PlanOptions): FormPlan {
  const plan: FormPlan = {
    action: current ? 'update' : 'create',
    key: entry.key,
    name: entry.name,
    ...(current && { id: current.id, etag: current.etag }),
    settings: [],
    secrets: [],
    integrations: [],
    hooks: { add: [], remove: [] },
    write: {},
  };
  if (!current || current.name !== entry.name) {
    plan.settings.push({ name: 'name', from: current?.name, to: entry.name });
    plan.write.name = entry.name;
  }
  planSettings(entry.settings ?? {}, current, options, plan);
  if (entry.recipients !== undefined) {
    const list = normalAddresses(entry.recipients);
    const before = current?.recipients ?? [];
    const add = list.filter((a) => !before.includes(a));
    const remove = before.filter((a) => !list.includes(a));
    if (add.length > 0 || remove.length > 0) plan.recipients = { add, remove, list };
  }
  if (entry.integrations !== undefined) plan.integrations = planIntegrations(entry.integrations, current?.integrations ?? [], options);
  if (entry.hooks !== undefined) plan.hooks = planHooks(entry.hooks, current?.hooks ?? []);
  const changed =
    !current ||
    Object.keys(plan.write).length > 0 ||
    plan.recipients !== undefined ||
    plan.integrations.length > 0 ||
    plan.hooks.add.length > 0 ||
    plan.hooks.remove.length > 0;
  if (!changed) plan.action = 'unchanged';
  return plan;
}

/** What applying the file to the account would change. Pure: reads and writes nothing. */
export function planConfig(forms: ResolvedForm[], state: AccountState, options: PlanOptions): ConfigPlan {
  const byKey = new Map(state.forms.map((f) => [f.key, f]));
  const named = new Set(forms.map((f) => f.key));
  const plans = forms.map((entry) => planForm(entry, byKey.get(entry.key), options));
  for (const form of state.forms) {
    if (named.has(form.key)) continue;
    plans.push({
      action: options.prune ? 'delete' : 'untouched',
      key: form.key,
      name: form.name,
      id: form.id,
      etag: form.etag,
      settings: [],
      secrets: [],
      integrations: [],
      hooks: { add: [], remove: [] },
      write: {},
    });
  }
  const changes = plans.filter((p) => p.action === 'create' || p.action === 'update' || p.action === 'delete').length;
  return { accountId: state.accountId, forms: plans, changes };
}
