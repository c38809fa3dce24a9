import type { FormSettingsInput } from '../forms/form.service.js';
import type { IntegrationKind } from '../integrations/integration.types.js';
import type { FileSettings, SecretSetting } from './config-file.schema.js';

/**
 * A secret as a target can see it: its value where the target may read it (on this machine),
 * else only whether it is set (through the API, which never shows one).
 */
export type SecretState = { set: false } | { set: true; value?: string };

export interface IntegrationState {
  id: string;
  kind: IntegrationKind;
  name: string;
  enabled: boolean;
  chatId: string | null;
  url: SecretState;
  token: SecretState;
  /** A service kind's settings by field name, as the file writes them; empty for the chat kinds. */
  settings: Record<string, string | string[]>;
  /** A service kind's secrets by field name. */
  secrets: Record<string, SecretState>;
  /** Its ETag, where the target checks one (If-Match). */
  etag?: string | undefined;
}

export interface HookState {
  id: string;
  targetUrl: string;
}

/** One form as it is now, in the file's terms. */
export interface FormState {
  id: string;
  /** Its configuration key; a form that has none is named by its ID. */
  key: string;
  name: string;
  /** Every setting that is not a secret, as the file writes it. */
  settings: Required<Omit<FileSettings, SecretSetting>>;
  secrets: Record<SecretSetting, SecretState>;
  recipients: string[];
  integrations: IntegrationState[];
  hooks: HookState[];
  /** The form's ETag, where the target checks one (If-Match). */
  etag?: string | undefined;
}

export interface AccountState {
  accountId: string;
  /** The account's email, for the file's `account`. */
  email: string;
  forms: FormState[];
}

export interface NewIntegration {
  kind: string;
  name: string;
  url?: string | undefined;
  token?: string | undefined;
  chatId?: string | undefined;
  enabled?: boolean | undefined;
  /** A service kind's settings and secrets by field name. */
  fields?: Record<string, string | string[]> | undefined;
}

/** What changes of an integration that is kept (its ID stays); left out, a value stays. */
export interface IntegrationUpdate {
  url?: string;
  token?: string;
  chatId?: string;
  enabled?: boolean;
  /**
   * A service kind's settings, every one (what the file leaves out as it is now), and the secrets
   * that change: the service takes them together and keeps the secrets left out.
   */
  fields?: Record<string, string | string[]>;
}

/** The changes a target can make; the plan calls them in order. */
export interface ConfigWriter {
  /** Creates the form with the key and returns its ID. */
  createForm(key: string, settings: FormSettingsInput & { name: string }): Promise<string>;
  updateForm(form: { id: string; etag?: string | undefined }, settings: FormSettingsInput): Promise<void>;
  setRecipients(formId: string, addresses: string[]): Promise<void>;
  addIntegration(formId: string, integration: NewIntegration): Promise<void>;
  updateIntegration(formId: string, integration: { id: string; etag?: string | undefined }, changes: IntegrationUpdate): Promise<void>;
  removeIntegration(formId: string, integration: { id: string; etag?: string | undefined }): Promise<void>;
  addHook(formId: string, targetUrl: string): Promise<void>;
  removeHook(hookId: string): Promise<void>;
}

/**
 * Where a configuration is read from and applied to: the database on this machine (one
 * transaction) or a server through its API.
 */
export interface ConfigTarget {
  /** False through the API: secrets are seen only as set or not, so a changed value is not noticed. */
  readonly readsSecrets: boolean;
  /** The account the file is applied to, with its forms. `account` is the file's, if any. */
  read(account: string | undefined): Promise<AccountState>;
  /** Runs the writes; on this machine in one transaction, which none of them outlives. */
  write(accountId: string, run: (writer: ConfigWriter) => Promise<void>): Promise<void>;
  /** Deletes a form the file no longer names (`--prune`), with its submissions. */
  deleteForm(form: { id: string; etag?: string | undefined }): Promise<void>;
}
