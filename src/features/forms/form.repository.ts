import type { Executor } from '../../platform/db/database.js';
import type { FormRow, FormRowUpdate, NewFormRow } from '../../platform/db/schema.js';
import { DEFAULT_NOTIFY_SUBJECT, formLanguages, toAltchaComplexity, toBotCheckVendor, toSpamFilterMode, type Form, type FormLanguage, type NotifyMode } from './form.types.js';

export function formRowToForm(row: FormRow): Form {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    isActive: row.is_active === 1,
    accessKey: row.access_key,
    requireBotCheck: row.bot_check === 'turnstile',
    turnstileSecret: row.turnstile_secret,
    successUrl: row.success_url,
    errorUrl: row.error_url,
    allowedRedirectHosts: JSON.parse(row.allowed_redirect_hosts) as string[],
    notifyMode: row.notify_mode as NotifyMode,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    turnstileSiteKey: row.turnstile_site_key,
    blockedTerms: JSON.parse(row.blocked_terms) as string[],
    blockedEmails: JSON.parse(row.blocked_emails) as string[],
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    maxLinks: row.max_links,
    retentionDays: row.retention_days,
    storeIp: row.store_ip === 'none' ? 'none' : 'full',
    botCheck: toBotCheckVendor(row.bot_check),
    hcaptchaSecret: row.hcaptcha_secret,
    hcaptchaSiteKey: row.hcaptcha_site_key,
    recaptchaSecret: row.recaptcha_secret,
    recaptchaSiteKey: row.recaptcha_site_key,
    recaptchaMinScore: Number(row.recaptcha_min_score),
    altchaComplexity: toAltchaComplexity(row.altcha_complexity),
    minFillSeconds: Number(row.min_fill_seconds),
    spamFilter: toSpamFilterMode(row.spam_filter),
    notifySubject: row.notify_subject ?? DEFAULT_NOTIFY_SUBJECT,
    autoReply: {
      enabled: row.auto_reply_enabled === 1,
      field: row.auto_reply_field,
      subject: row.auto_reply_subject,
      body: row.auto_reply_body,
    },
    autoReplyDailyLimit: Number(row.auto_reply_daily_limit),
    thanksTitle: row.thanks_title,
    thanksMessage: row.thanks_message,
    language: (formLanguages as readonly string[]).includes(row.language) ? (row.language as FormLanguage) : 'auto',
    requiredFields: JSON.parse(row.required_fields) as string[],
    files: row.files_mode === 'store' ? 'store' : 'off',
    maxFiles: Number(row.max_files),
    maxFileBytes: Number(row.max_file_bytes),
    maxTotalBytes: Number(row.max_total_bytes),
    fileTypes: JSON.parse(row.file_types) as string[],
    key: row.config_key ?? null,
    revision: Number(row.revision ?? 0),
  };
}

export async function insertForm(db: Executor, row: NewFormRow): Promise<void> {
  await db.insertInto('forms').values(row).execute();
}

export async function findFormRowById(db: Executor, id: string): Promise<FormRow | undefined> {
  return db.selectFrom('forms').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Form IDs in ID order after `afterId` (the form directory's full load, a page at a time). */
export async function findFormIdsAfter(db: Executor, afterId: string | undefined, limit: number): Promise<string[]> {
  let query = db.selectFrom('forms').select('id').orderBy('id').limit(limit);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return (await query.execute()).map((row) => row.id);
}

/** IDs of the forms created at or after `since` (forms_created_idx, migration 0014). */
export async function findFormIdsCreatedSince(db: Executor, since: string): Promise<string[]> {
  return (await db.selectFrom('forms').select('id').where('created_at', '>=', since).execute()).map((row) => row.id);
}

/**
 * The rows among these IDs. The list is padded to a power of two (repeating its last ID), so that
 * the few statement texts this makes stay in SQLite's statement cache.
 */
export async function findFormRowsByIds(db: Executor, ids: string[]): Promise<FormRow[]> {
  if (ids.length === 0) return [];
  const padded = [...ids];
  while ((padded.length & (padded.length - 1)) !== 0) padded.push(ids[ids.length - 1]!);
  return db.selectFrom('forms').selectAll().where('id', 'in', padded).execute();
}

export async function findFormRowOfAccount(db: Executor, accountId: string, id: string): Promise<FormRow | undefined> {
  return db
    .selectFrom('forms')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function listFormRowsOfAccount(db: Executor, accountId: string): Promise<FormRow[]> {
  return db
    .selectFrom('forms')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/**
 * Every change counts the revision up (the ETag's part for what the resource does not show). With
 * `expectedRevision`, only a row still at that revision changes: false when another write came
 * first. On PostgreSQL the second of two concurrent writers waits for the first's row lock and then
 * finds the revision moved.
 */
export async function updateFormRow(db: Executor, id: string, changes: FormRowUpdate, expectedRevision?: number): Promise<boolean> {
  let query = db
    .updateTable('forms')
    .set((eb) => ({ ...changes, revision: eb('revision', '+', 1) }))
    .where('id', '=', id);
  if (expectedRevision !== undefined) query = query.where('revision', '=', expectedRevision);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The form of the account that a configuration file names by `key`. */
export async function findFormRowByConfigKey(db: Executor, accountId: string, key: string): Promise<FormRow | undefined> {
  return db.selectFrom('forms').selectAll().where('account_id', '=', accountId).where('config_key', '=', key).executeTakeFirst();
}

export async function deleteFormRow(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('forms').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Forms with a retention period, for the purge. */
export async function listFormRowsWithRetention(db: Executor): Promise<Array<{ id: string; retention_days: number }>> {
  const rows = await db
    .selectFrom('forms')
    .select(['id', 'retention_days'])
    .where('retention_days', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, retention_days: Number(r.retention_days) }));
}
