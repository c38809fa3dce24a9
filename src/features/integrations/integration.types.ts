/** The chat and push kinds; the kinds of services that keep the data are in service-kinds.ts. */
export const CHAT_KINDS = ['slack', 'discord', 'telegram', 'teams', 'ntfy'] as const;
export type ChatKind = (typeof CHAT_KINDS)[number];
/** A chat kind or a service kind (service-kinds.ts). */
export type IntegrationKind = string;

/** Per form (docs/integrations.md). */
export const MAX_INTEGRATIONS_PER_FORM = 10;

/** What the owner sees of an integration; its secrets only as whether they are set. */
export interface Integration {
  id: string;
  formId: string;
  kind: IntegrationKind;
  name: string;
  enabled: boolean;
  /** Why it was turned off automatically (the platform refused it), or null. */
  disabledReason: string | null;
  createdAt: string;
  /** `set` or null, never the value (webhook URLs and tokens are secrets). */
  url: 'set' | null;
  token: 'set' | null;
  /** A Telegram chat ID is not a secret. */
  chatId: string | null;
  /** A service kind's settings the owner sees (a spreadsheet ID, a base); empty for the chat kinds. */
  settings: Record<string, unknown>;
  /** A service kind's write-only settings, each only as `set`. */
  secrets: Record<string, 'set'>;
  /** Counted up by every change; the API's ETag covers it. */
  revision: number;
}

/** The secret-bearing target of one integration, as a sender needs it. */
export interface IntegrationTarget {
  kind: ChatKind;
  url: string | null;
  token: string | null;
  chatId: string | null;
}

export interface IntegrationAttempt {
  id: string;
  attemptedAt: string;
  outcome: 'sent' | 'retry' | 'failed' | 'disabled' | 'skipped';
  status: number | null;
  error: string | null;
  /** A "Send test", not a message of a submission. */
  test: boolean;
}

/** One outbound HTTP request, ready to send. */
export interface PlatformRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}
