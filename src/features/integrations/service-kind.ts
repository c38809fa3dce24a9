import type { Config } from '../../platform/config.js';
import type { ApiAnswer, ApiClient, ApiRequest } from './api-client.js';
import type { SubmissionMessage } from './message.js';
import type { AttemptOutcome } from './outcome.js';

/**
 * A kind of integration with a service that keeps the data (a spreadsheet, a database, a mailing
 * list): one folder beside this file with its settings, its sender and its API client, and one
 * line in service-kinds.ts. The channel, the service, the CLI and the dashboard handle every such
 * kind the same way, from what it declares here.
 */
export interface ServiceKind {
  readonly kind: string;
  /** The service's name, as the owner knows it. */
  readonly label: string;
  /** What one submission becomes there (`row`, `record`, `page`): the message log says "Google Sheets row". */
  readonly item: string;
  /** Where the settings come from, in a sentence (the dashboard's add form). */
  readonly help: string;
  /**
   * Messages go one at a time per integration, in the order the submissions arrived (rows of a
   * sheet): the next is sent only once the one before is done.
   */
  readonly sequential: boolean;
  readonly fields: readonly KindField[];
  /** The owner's input checked: the settings to store, or what is wrong with which field. */
  parse(input: KindInput, config: Config): ParsedSettings | { problems: Record<string, string> };
  /** Made once, by the integrations channel. */
  createSender(deps: KindDeps): KindSender;
  /**
   * Why a submission is not for this integration (a sign-up without consent), decided from its
   * stored fields when its message is leased: the outbox records it `skipped` with this reason.
   */
  skip?(settings: Record<string, unknown>, payload: Record<string, unknown>): string | undefined;
}

/** One setting of a kind: its input in the dashboard's add form and its option in the CLI. */
export interface KindField {
  /** The input's name, and the key of the CLI option's value. */
  name: string;
  label: string;
  /** The CLI option as commander spells it (`--spreadsheet <id>`); its value lands under `name`. */
  option: string;
  /** The CLI option names a file whose content is the value (a JSON key). */
  fromFile?: boolean;
  /** Write-only: shown once when set, then only as `set`. */
  secret?: boolean;
  required?: boolean;
  /** A text area (a JSON key; a mapping, one `field=column` a line). */
  multiline?: boolean;
  /** The CLI option may repeat (`--map a=b --map c=d`); the dashboard takes one a line. */
  repeated?: boolean;
  placeholder?: string;
}

/** The owner's input by field name; a repeated field as its values. */
export type KindInput = Record<string, string | string[] | undefined>;

export interface ParsedSettings {
  /** Shown to the owner (an ID, a sheet name, a mapping). */
  settings: Record<string, unknown>;
  /** Never shown again once stored. */
  secrets: Record<string, unknown>;
}

export interface KindDeps {
  config: Config;
  /** Requests to the APIs at the operator's bases (config.ts). */
  http: ApiClient;
  /**
   * Requests to an address the owner gave (a self-hosted listmonk): through the SSRF-safe sender
   * of the chat kinds, `https:` and public addresses only.
   */
  ownerHttp: { request(request: ApiRequest): Promise<ApiAnswer> };
}

/** An integration's stored settings, as its sender needs them. */
export interface KindTarget {
  integrationId: string;
  settings: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

/** One submission (or the test sample) to deliver. */
export interface KindDelivery {
  /** `test` for the sample of "Send test". */
  submissionId: string;
  createdAt: string;
  /** The fields as text, in the submission's order. */
  fields: SubmissionMessage['fields'];
  message: SubmissionMessage;
  /**
   * Attempts made before this one: after one, an earlier attempt may have written before its
   * answer was lost.
   */
  attempts: number;
  test: boolean;
}

/** What one attempt came to: the outcome and the answer that decided it. */
export interface KindOutcome {
  outcome: AttemptOutcome;
  status: number | null;
  durationMs: number | null;
}

export interface KindSender {
  send(target: KindTarget, delivery: KindDelivery): Promise<KindOutcome>;
}
