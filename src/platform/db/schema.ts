import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Row types of every table. Columns are snake_case; timestamps are ISO 8601 UTC text with
 * milliseconds (sortable as text on both SQLite and PostgreSQL); flags are 0/1 integers;
 * JSON documents are text.
 */
export interface AccountTable {
  id: string;
  email: string;
  display_name: string;
  plan_id: string;
  password_hash: string | null;
  created_at: string;
  /** Set: the account cannot log in and its API keys answer 401. */
  disabled_at: string | null;
  /** The IANA zone the account reads times in; null until the dashboard learned the browser's. */
  time_zone: string | null;
  /** The team's name, set by its owner (migration 0038); null: the owner's email stands for it. */
  team_name: string | null;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  name: string;
  key_hash: string;
  /** First characters of the key, shown in the dashboard so an owner can tell keys apart. */
  key_prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** read | triage | manage (migrations 0022 and 0034; keys made before are `read`). */
  scope: Generated<string>;
}

export interface FormTable {
  id: string;
  account_id: string;
  name: string;
  is_active: number;
  /** Non-null means the form requires this access key. */
  access_key: string | null;
  require_bot_check: number;
  turnstile_secret: string | null;
  success_url: string | null;
  error_url: string | null;
  /** JSON array of host names a `redirect` field may point to. */
  allowed_redirect_hosts: string;
  created_at: string;
  updated_at: string;
  /** JSON array of lower-case terms; a field value containing one is spam. */
  blocked_terms: Generated<string>;
  /** JSON array of lower-case addresses and `@domain` entries. */
  blocked_emails: Generated<string>;
  /** JSON array of hosts a submission's Origin (or Referer) must name; empty = any. */
  allowed_origins: Generated<string>;
  max_links: number | null;
  retention_days: number | null;
  /** `full` or `none`. */
  store_ip: Generated<string>;
  turnstile_site_key: string | null;
  /** each | hourly | daily (email notifications). */
  notify_mode: Generated<string>;
  /** none | turnstile | hcaptcha | recaptcha | altcha (migration 0010); require_bot_check mirrors `turnstile`. */
  bot_check: Generated<string>;
  hcaptcha_secret: string | null;
  hcaptcha_site_key: string | null;
  recaptcha_secret: string | null;
  recaptcha_site_key: string | null;
  recaptcha_min_score: Generated<number>;
  /** low | medium | high */
  altcha_complexity: Generated<string>;
  min_fill_seconds: Generated<number>;
  /** off | learn */
  spam_filter: Generated<string>;
  /** Template of the owner notification's subject; null is the default. */
  notify_subject: string | null;
  auto_reply_enabled: Generated<number>;
  /** The submission field holding the visitor's address. */
  auto_reply_field: Generated<string>;
  /** Templates of the confirmation; null is the language's default text. */
  auto_reply_subject: string | null;
  auto_reply_body: string | null;
  auto_reply_daily_limit: Generated<number>;
  thanks_title: string | null;
  thanks_message: string | null;
  /** auto | en | de | fr | es | pt */
  language: Generated<string>;
  /** JSON array of field names each submission must hold a non-blank value in. */
  required_fields: Generated<string>;
  /** off | store (migration 0023). */
  files_mode: Generated<string>;
  max_files: Generated<number>;
  /** bigint: PostgreSQL returns it as a string. */
  max_file_bytes: Generated<number | string>;
  max_total_bytes: Generated<number | string>;
  /** JSON array of MIME types and group names; empty means the default groups. */
  file_types: Generated<string>;
  /** The stable name a configuration file gives the form, unique per account (migration 0034). */
  config_key: string | null;
  /** Counted up by every change: part of the ETag (migration 0034). */
  revision: Generated<number>;
}

export interface SubmissionTable {
  id: string;
  form_id: string;
  created_at: string;
  status: string;
  is_spam: number;
  /** JSON object: field name to string | number | boolean | null | array of those. */
  payload: string;
  ip: string;
  country: string;
  user_agent: string;
  referer: string;
  /** Why it is spam (docs/api.md, `spamReason`); null when it is not. */
  spam_reason: string | null;
  /** 1 once its hooks (and notifications) were queued: set at most once, so nothing is sent twice. */
  outbound_released: Generated<number>;
  /** The learning filter's spam probability when it filed the submission as spam (`classifier`). */
  spam_score?: number | null;
  /** The language its pages spoke and its confirmation speaks (en, de, fr, es, pt); null before migration 0024. */
  language?: string | null;
}

/** The first answer to a management API write sent with an Idempotency-Key (migration 0034). */
export interface ApiIdempotencyKeyTable {
  api_key_id: string;
  idempotency_key: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  request_hash: string;
  /** pending while the first request runs, then done. */
  state: string;
  status_code: number | null;
  /** JSON: { body, headers } of the first answer. */
  response: string | null;
  created_at: string;
}

export interface IdempotencyKeyTable {
  form_id: string;
  idempotency_key: string;
  submission_id: string;
  /** JSON of the first result, replayed to repeats. */
  result: string;
  created_at: string;
}

export interface HookTable {
  id: string;
  account_id: string;
  form_id: string;
  target_url: string;
  secret: string;
  created_at: string;
}

export interface HookDeliveryTable {
  id: string;
  hook_id: string;
  submission_id: string;
  /** pending → sending → sent | failed; sent again: pending once more, the same ID */
  state: string;
  created_at: string;
  /** The lease: when and by which instance it was claimed (renewed while it is sent). */
  claimed_at: string | null;
  claimed_by: Generated<string | null>;
  /** Attempts made (migration 0019): 1 after the automatic one, one more per "Send again"; each is in `outbox_attempts`. */
  attempts: Generated<number>;
}

export interface SessionTable {
  /** SHA-256 of the session token; the token itself lives only in the cookie. */
  id: string;
  /** The account the dashboard acts in: the user's current account, changed by the switcher. */
  account_id: string;
  /** The signed-in person (migration 0027; null never written since). */
  user_id: string | null;
  csrf_secret: string;
  created_at: string;
  expires_at: string;
  /** The User-Agent the session was opened with; shown to the owner only. */
  user_agent: string | null;
  /** The address the session was opened from; shown to the owner only. */
  ip: string | null;
  /** When the user last signed on at the single sign-on provider in this session; null: never. */
  signed_on_at: string | null;
}

/** A person who signs in to the dashboard (migration 0027); their accounts are in memberships. */
export interface UserTable {
  id: string;
  email: string;
  display_name: string;
  /** Null: the user signs in by single sign-on only. */
  password_hash: string | null;
  created_at: string;
  /** 1: the instance's admin, who sees the Admin page (the first user, or one marked with the CLI). */
  is_admin: Generated<number>;
  /**
   * When the address was shown to be the user's (an emailed link, a verified single sign-on, or
   * the operator made the user); null: never, and single sign-on does not link by address.
   */
  email_confirmed_at: string | null;
}

/** A user's place in an account: one role per (account, user); exactly one owner per account. */
export interface MembershipTable {
  account_id: string;
  user_id: string;
  /** owner | admin | member | viewer */
  role: string;
  created_at: string;
}

/** An invitation to join an account with a role, by a single-use link valid 7 days. */
export interface InvitationTable {
  id: string;
  account_id: string;
  email: string;
  role: string;
  /** SHA-256 of the token; the token itself is in the link only. */
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

/** Instance-wide settings the admin changes on the dashboard (sign-up) and facts (last purge). */
export interface InstanceSettingTable {
  name: string;
  value: string;
  updated_at: string;
}

/** A submission whose outbound work (hook deliveries, email) the dispatcher is still to create. */
export interface OutboxTable {
  submission_id: string;
  created_at: string;
}

export interface EmailRecipientTable {
  id: string;
  form_id: string;
  address: string;
  /** pending (verification sent) | verified | bounced */
  state: string;
  /** SHA-256 of the single-use verification token. */
  token_hash: string | null;
  token_expires_at: string | null;
  created_at: string;
  verified_at: string | null;
  bounced_at: string | null;
}

export interface EmailMessageTable {
  id: string;
  /** submission | digest | verification | test | password_reset | welcome | invitation | … */
  kind: string;
  form_id: string | null;
  submission_id: string | null;
  recipient_id: string | null;
  to_address: string;
  period_start: string | null;
  period_end: string | null;
  /** JSON {subject, text, html} of a message composed when it was queued. */
  content: string | null;
  /** pending → sending → sent | bounced | failed | skipped */
  state: string;
  attempts: number;
  next_attempt_at: string;
  claimed_at: string | null;
  claimed_by: string | null;
  created_at: string;
  /** SHA-256 of the lower-cased address of a confirmation (the per-address guard). */
  address_hash: string | null;
  /**
   * Why a confirmation is not to be sent, decided as it is made (too_late); the outbox skips it
   * with this reason when it leases it. Every skip's reason is in outbox_attempts (migration
   * 0032); rows older than it also keep the guards' reasons here.
   */
  skip_reason: string | null;
  /** When a confirmation passed the guards; the hourly and daily limits count these. */
  admitted_at: string | null;
}

/** The instance's suppression list: addresses that get no confirmation email. */
export interface EmailSuppressionTable {
  /** SHA-256 of the lower-cased address. */
  address_hash: string;
  /** unsubscribe | bounce */
  reason: string;
  created_at: string;
}

/** A requested new account email, changed only when the link sent to it is opened. */
export interface EmailChangeTable {
  /** The user whose email changes (migration 0027; an account's before). */
  user_id: string;
  new_email: string;
  /** SHA-256 of the single-use token; the token itself is only in the email. */
  token_hash: string;
  created_at: string;
  expires_at: string;
}

export interface PasswordResetTable {
  /** SHA-256 of the single-use token; the token itself is only in the email. */
  token_hash: string;
  /** The user whose password is reset (migration 0027; an account's before). */
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/**
 * Submissions per form and UTC hour: added by the code that inserts them (submission.repository.ts;
 * migrations 0007 and 0015), taken away by the delete and spam-change triggers; read as the sum
 * over shards.
 */
export interface FormHourlyCountTable {
  form_id: string;
  /** YYYY-MM-DDTHH (UTC): the chart adds hours up into the viewer's days (migration 0013) */
  hour: string;
  shard: number;
  inbox: number;
  spam: number;
}

/** Submissions per form, kept as form_hourly_counts is; read as the sum over shards. */
export interface FormCountTable {
  form_id: string;
  shard: number;
  inbox: number;
  spam: number;
}

/** A random secret shared by every instance on this database, created on first use. */
export interface InstanceSecretTable {
  name: string;
  /** base64url of 32 random bytes. */
  value: string;
  created_at: string;
}

export interface IntegrationTable {
  id: string;
  form_id: string;
  /** slack | discord | telegram | teams | ntfy */
  kind: string;
  name: string;
  enabled: number;
  /** Why the platform's answer turned it off (401/403/404/410), or null. */
  disabled_reason: string | null;
  /** Secret: the webhook or topic URL. */
  url: string | null;
  /** Secret: the bot or access token. */
  token: string | null;
  chat_id: string | null;
  created_at: string;
  /** JSON object: the kind's settings the owner sees (a spreadsheet ID, a base); null for the chat kinds. Migration 0036. */
  settings: string | null;
  /** JSON object: the kind's write-only settings (a key, a token); null for the chat kinds. */
  secrets: string | null;
  /** Counted up by every change: part of the ETag (migration 0034). */
  revision: Generated<number>;
}

export interface IntegrationMessageTable {
  id: string;
  integration_id: string;
  submission_id: string;
  /** pending → sending → sent | failed | skipped */
  state: string;
  attempts: number;
  next_attempt_at: string;
  claimed_at: string | null;
  claimed_by: string | null;
  created_at: string;
  /** The submission's time and ID: the order of the messages of a kind that sends one at a time. Migration 0036. */
  position: string | null;
}

/**
 * Every outcome of every outbound item (migration 0029), written by the outbox with the item's
 * new state: an attempt at a hook delivery, an email or an integration message (`item_id` in the
 * channel's table), a skip with its reason, or an owner's test send (`item_id` is what it tests: a
 * hook, an integration, an email recipient; migration 0032). A trigger on each of these tables
 * removes a row's attempts with it.
 */
export interface OutboxAttemptTable {
  id: string;
  /** The channel's name: hooks | email | integrations. */
  channel: string;
  item_id: string;
  /** 1 for the first attempt, one more each retry or "Send again". */
  attempt: number;
  attempted_at: string;
  /** sent | retry | failed | skipped, or the channel's own: bounced (email), disabled (integrations). */
  outcome: string;
  /** The HTTP status of the answer; null for email and when there was no answer. */
  status: number | null;
  duration_ms: number | null;
  /** The error, an SMTP reply, or why the item was skipped. */
  error: string | null;
}

/** An ALTCHA solution already accepted: a second use of the same challenge is a replay. */
export interface AltchaSpentSolutionTable {
  /** The challenge hash (unique per issued challenge). */
  challenge: string;
  form_id: string;
  /** When the challenge expires; the row is purged after that. */
  expires_at: string;
}

/** One account's learning filter: how many examples it learned, and a counter bumped by every lesson. */
export interface SpamFilterModelTable {
  account_id: string;
  spam_examples: number;
  ham_examples: number;
  version: number;
}

/** In how many spam and non-spam examples of the account a token occurred. */
export interface SpamFilterTokenTable {
  account_id: string;
  token: string;
  spam_count: number;
  ham_count: number;
  /** The model version that last changed this row (instances reload rows newer than theirs). */
  version: number;
}

/** The lesson learned from a submission (spam | ham), replaced when the owner marks it otherwise. */
export interface SpamFilterLessonTable {
  submission_id: string;
  account_id: string;
  label: string;
  created_at: string;
}

/** An OpenID Connect identity (issuer, `sub`) and the account it signs in to. */
export interface SsoIdentityTable {
  issuer: string;
  subject: string;
  /** The user it signs in (migration 0027; an account before). */
  user_id: string;
  /** The address the provider last vouched for (verified). */
  email: string;
  created_at: string;
  last_sign_in_at: string;
}

/** One audit event: who (actor), from where, did what to which target; details never hold secrets. */
export interface AuditEventTable {
  /** Time-ordered (newTimeOrderedId), so paging by id is paging by time. */
  id: string;
  account_id: string;
  at: string;
  /** account | api_key | cli | system (a user, once accounts have members) */
  actor_type: string;
  actor_id: string | null;
  /** The actor as people read it: an email, a key's name and prefix, `cli`. */
  actor_label: string;
  address: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** JSON object, e.g. the names of the settings that changed. */
  details: string | null;
}

/** A submission's team-inbox state (migration 0020); no row means unread, open, unassigned. */
export interface SubmissionTriageTable {
  submission_id: string;
  form_id: string;
  read_at: string | null;
  /** open | done */
  state: Generated<string>;
  /** The assigned member (a user who may triage in the form's account), or null. */
  assignee_id: string | null;
  /** Private notes, shown only in the dashboard. */
  notes: Generated<string>;
  /** Who last wrote the notes (a user) and when (migration 0037). */
  notes_by: string | null;
  notes_at: string | null;
  updated_at: string;
}

export interface SubmissionTagTable {
  submission_id: string;
  form_id: string;
  tag: string;
}

/** An uploaded file (migration 0023); its content lives in the file storage under storage_key. */
export interface FileTable {
  id: string;
  account_id: string;
  form_id: string;
  /** Null while its upload is in progress; set just before its submission is written. */
  submission_id: string | null;
  field: string;
  /** The client's file name, cleaned of paths and control characters. */
  name: string;
  /** bigint: PostgreSQL returns it as a string. */
  size: number | string;
  /** The MIME type its content's magic bytes tell. */
  type: string;
  storage_key: string;
  /** clean | unscanned | malware */
  scan_state: Generated<string>;
  created_at: string;
}

export interface Database {
  accounts: AccountTable;
  users: UserTable;
  memberships: MembershipTable;
  invitations: InvitationTable;
  api_keys: ApiKeyTable;
  forms: FormTable;
  submissions: SubmissionTable;
  idempotency_keys: IdempotencyKeyTable;
  api_idempotency_keys: ApiIdempotencyKeyTable;
  hooks: HookTable;
  hook_deliveries: HookDeliveryTable;
  outbox: OutboxTable;
  email_recipients: EmailRecipientTable;
  email_messages: EmailMessageTable;
  integrations: IntegrationTable;
  integration_messages: IntegrationMessageTable;
  outbox_attempts: OutboxAttemptTable;
  email_suppressions: EmailSuppressionTable;
  password_resets: PasswordResetTable;
  email_changes: EmailChangeTable;
  sessions: SessionTable;
  sso_identities: SsoIdentityTable;
  audit_events: AuditEventTable;
  form_hourly_counts: FormHourlyCountTable;
  form_counts: FormCountTable;
  instance_secrets: InstanceSecretTable;
  altcha_spent_solutions: AltchaSpentSolutionTable;
  spam_filter_models: SpamFilterModelTable;
  spam_filter_tokens: SpamFilterTokenTable;
  spam_filter_lessons: SpamFilterLessonTable;
  instance_settings: InstanceSettingTable;
  submission_triage: SubmissionTriageTable;
  submission_tags: SubmissionTagTable;
  files: FileTable;
}

export type AccountRow = Selectable<AccountTable>;
export type UserRow = Selectable<UserTable>;
export type NewUserRow = Insertable<UserTable>;
export type MembershipRow = Selectable<MembershipTable>;
export type InvitationRow = Selectable<InvitationTable>;
export type NewAccountRow = Insertable<AccountTable>;
export type EmailChangeRow = Selectable<EmailChangeTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type NewApiKeyRow = Insertable<ApiKeyTable>;
export type FormRow = Selectable<FormTable>;
export type NewFormRow = Insertable<FormTable>;
export type FormRowUpdate = Updateable<FormTable>;
export type IntegrationRowUpdate = Updateable<IntegrationTable>;
export type SubmissionRow = Selectable<SubmissionTable>;
export type FileRow = Selectable<FileTable>;
export type NewFileRow = Insertable<FileTable>;
export type SubmissionTriageRow = Selectable<SubmissionTriageTable>;
export type NewSubmissionTriageRow = Insertable<SubmissionTriageTable>;
export type SubmissionTagRow = Selectable<SubmissionTagTable>;
export type NewSubmissionRow = Insertable<SubmissionTable>;
export type IdempotencyKeyRow = Selectable<IdempotencyKeyTable>;
export type ApiIdempotencyKeyRow = Selectable<ApiIdempotencyKeyTable>;
export type HookRow = Selectable<HookTable>;
export type NewHookRow = Insertable<HookTable>;
export type HookDeliveryRow = Selectable<HookDeliveryTable>;
export type EmailRecipientRow = Selectable<EmailRecipientTable>;
export type EmailMessageRow = Selectable<EmailMessageTable>;
export type NewEmailMessageRow = Insertable<EmailMessageTable>;
export type InstanceSecretRow = Selectable<InstanceSecretTable>;
export type IntegrationRow = Selectable<IntegrationTable>;
export type OutboxAttemptRow = Selectable<OutboxAttemptTable>;
