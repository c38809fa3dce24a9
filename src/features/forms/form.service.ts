import type { AuditService } from '../audit/audit.service.js';
import { z } from 'zod';
import type { Executor, Trx } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { notFound, preconditionFailed, validationFailed } from '../../platform/errors.js';
import { hasIdShape, newId } from '../../platform/lib/ids.js';
import { canBeKey } from '../../platform/lib/text.js';
import { templateProblem } from '../../platform/lib/template.js';
import { nowIso } from '../../platform/lib/time.js';
import type { FormRowUpdate } from '../../platform/db/schema.js';
import { changedSettingNames } from './form-settings-diff.js';
import {
  deleteFormRow,
  findFormIdsAfter,
  findFormIdsCreatedSince,
  findFormRowByConfigKey,
  findFormRowById,
  findFormRowOfAccount,
  findFormRowsByIds,
  formRowToForm,
  insertForm,
  listFormRowsOfAccount,
  listFormRowsWithRetention,
  updateFormRow,
} from './form.repository.js';
import { isFileTypeEntry } from '../../platform/lib/file-types.js';
import { ALTCHA_COMPLEXITIES, BOT_CHECK_VENDORS, DEFAULT_MAX_FILES, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_TOTAL_BYTES, FILES_MODES, MAX_MAX_FILES, SPAM_FILTER_MODES, formLanguages, notifyModes, type BotCheckVendor, type Form } from './form.types.js';
import { FORM_CACHE_TTL_MS, FormCache } from './form-cache.js';
import { FormDirectory } from './form-directory.js';
import { hostOfEntry } from './host-list.js';

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9.-]+(:\d+)?$|^\[[0-9a-f:.]+\](:\d+)?$/, 'must be a host name')
  .max(253);

const EMAIL_ADDRESS = /^[^\s@",;<>()[\]]+@[a-z0-9.-]+\.[a-z0-9-]+$/;
const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;

/** An exact address, or `@domain` (that domain and its subdomains). */
const blockedEmail = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .refine((v) => (v.startsWith('@') ? DOMAIN.test(v.slice(1)) : EMAIL_ADDRESS.test(v)), 'must be an email address or @domain');

/** A host as an Origin header names it; a pasted URL (https://shop.example.com/page) is reduced to its host. */
const listedHost = z.preprocess(hostOfEntry, hostName);

/** An owner-written template (docs/email.md, Templates): parses, and holds only plain variables. */
const template = (max: number) =>
  z
    .string()
    .max(max)
    .superRefine((value, ctx) => {
      const problem = templateProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: `template ${problem}` });
    });

/** Plain text a visitor sees; control characters other than line breaks and tabs are refused. */
const plainText = (max: number) =>
  z
    .string()
    .max(max)
    // eslint-disable-next-line no-control-regex
    .refine((v) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v), 'must be plain text');

const autoReplySchema = z.object({
  enabled: z.boolean(),
  field: z.string().trim().min(1).max(256),
  subject: template(200).nullable(),
  body: template(5000).nullable(),
});

const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
};

// Site keys are public; restricting the characters keeps the snippet plain text.
const siteKey = (what: string) =>
  z.string().trim().regex(/^[A-Za-z0-9_-]{1,256}$/, `must be ${what} (letters, digits, _ and -)`);

/** Every per-form setting; null clears a setting, undefined leaves it as it is. */
const formSettingsSchema = z.object({
  name: z.string().trim().min(1).max(200),
  isActive: z.boolean(),
  accessKey: z.string().min(1).max(256).nullable(),
  requireBotCheck: z.boolean(),
  turnstileSecret: z.string().trim().min(1).max(512).nullable(),
  successUrl: httpUrl.nullable(),
  errorUrl: httpUrl.nullable(),
  allowedRedirectHosts: z.array(listedHost).max(50),
  // Site keys are public and look like 0x4AAAAAAA…: restricting the characters keeps the snippet plain text.
  turnstileSiteKey: z.string().trim().regex(/^[A-Za-z0-9_-]{1,256}$/, 'must be a Turnstile site key (letters, digits, _ and -)').nullable(),
  blockedTerms: z.array(z.string().trim().toLowerCase().min(1).max(200)).max(200),
  blockedEmails: z.array(blockedEmail).max(200),
  allowedOrigins: z.array(listedHost).max(50),
  maxLinks: wholeNumber(0, 1000).nullable(),
  retentionDays: wholeNumber(1, 3650).nullable(),
  storeIp: z.enum(['full', 'none'], { error: 'must be full or none' }),
  notifyMode: z.enum(notifyModes),
  botCheck: z.enum(BOT_CHECK_VENDORS, { error: `must be one of ${BOT_CHECK_VENDORS.join(', ')}` }),
  hcaptchaSecret: z.string().trim().min(1).max(512).nullable(),
  hcaptchaSiteKey: siteKey('an hCaptcha site key').nullable(),
  recaptchaSecret: z.string().trim().min(1).max(512).nullable(),
  recaptchaSiteKey: siteKey('a reCAPTCHA site key').nullable(),
  recaptchaMinScore: z.number({ error: 'must be a number from 0 to 1' }).min(0, 'must be a number from 0 to 1').max(1, 'must be a number from 0 to 1'),
  altchaComplexity: z.enum(ALTCHA_COMPLEXITIES, { error: 'must be low, medium or high' }),
  minFillSeconds: wholeNumber(0, 60),
  spamFilter: z.enum(SPAM_FILTER_MODES, { error: 'must be off or learn' }),
  notifySubject: template(200).nullable(),
  autoReply: autoReplySchema.partial(),
  autoReplyDailyLimit: wholeNumber(0, 100_000),
  thanksTitle: plainText(120).nullable(),
  thanksMessage: plainText(2000).nullable(),
  language: z.enum(formLanguages, { error: `must be one of ${formLanguages.join(', ')}` }),
  // Names as the page's inputs carry them: any text up to the submit path's 256-character limit.
  requiredFields: z.array(z.string().trim().min(1, 'must be a field name').max(256, 'must be at most 256 characters')).max(50),
  files: z.enum(FILES_MODES, { error: 'must be off or store' }),
  maxFiles: wholeNumber(1, MAX_MAX_FILES),
  // FILES_MAX_BYTES caps it again on the submit path: the form does not know the instance's limit.
  maxFileBytes: wholeNumber(1, 5 * 1024 ** 3),
  maxTotalBytes: wholeNumber(1, 50 * 1024 ** 3),
  fileTypes: z.array(z.string().trim().toLowerCase().refine(isFileTypeEntry, 'must be a MIME type or one of images, pdf, text, csv, office, zip')).max(50),
});

export type FormSettings = z.infer<typeof formSettingsSchema>;
/** The name of every setting a form has (the API refuses others by name). */
export const FORM_SETTING_NAMES: readonly string[] = Object.keys(formSettingsSchema.shape);
/** Settings whose value is a secret: shown only as `set`. */
export const SECRET_SETTING_NAMES = ['accessKey', 'turnstileSecret', 'hcaptchaSecret', 'recaptchaSecret'] as const;
export type FormSettingsInput = Partial<FormSettings>;

/** A configuration file's name for a form: short, and safe in a file, a URL and a shell. */
const CONFIG_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The settings and, apart, the form's configuration key (undefined: unchanged; null: none). */
export type FormInput = FormSettingsInput & { key?: string | null | undefined };

export interface FormWriteOptions {
  /** Change the form only if it is still at this revision (an If-Match), else precondition_failed. */
  expectedRevision?: number | undefined;
}

function parseConfigKey(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string' || !CONFIG_KEY.test(value.trim())) {
    throw validationFailed('The form key is not valid.', { key: 'must be 1 to 100 letters, digits, dots, dashes or underscores, starting with a letter or digit' });
  }
  return value.trim();
}

const keyTaken = () => validationFailed('Another form of the account has this key.', { key: 'already names another form of the account' });

/** Splits the key from the settings: the settings schema knows nothing of it. */
function splitKey(input: FormInput): { key: string | null | undefined; settings: FormSettingsInput } {
  const { key, ...settings } = input;
  return { key: parseConfigKey(key), settings };
}

function parseSettings(input: FormSettingsInput, requireName: boolean): FormSettingsInput {
  const schema = requireName ? formSettingsSchema.partial().required({ name: true }) : formSettingsSchema.partial();
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      // A nested setting is named by its path: autoReply.subject.
      const field = issue.path[0] === 'autoReply' && issue.path.length > 1 ? `autoReply.${String(issue.path[1])}` : String(issue.path[0]);
      // The first problem of a field; for a list, which entry it is.
      fieldErrors[field] ??= typeof issue.path[1] === 'number' ? `entry ${issue.path[1] + 1}: ${issue.message}` : issue.message;
    }
    throw validationFailed('The form settings are not valid.', fieldErrors);
  }
  return parsed.data;
}

/**
 * `requireBotCheck` predates the vendors and means Turnstile: true selects it; false turns the
 * check off only when it was Turnstile. An explicit `botCheck` wins.
 */
function withBotCheck(settings: FormSettingsInput, current?: Form): FormSettingsInput {
  if (settings.botCheck !== undefined || settings.requireBotCheck === undefined) return settings;
  const previous: BotCheckVendor = current?.botCheck ?? 'none';
  return { ...settings, botCheck: settings.requireBotCheck ? 'turnstile' : previous === 'turnstile' ? 'none' : previous };
}

/** The secret each vendor needs, the form's setting that holds it, and the variable that may stand in for it. */
const VENDOR_SECRETS = {
  turnstile: { field: 'turnstileSecret', variable: 'TURNSTILE_SECRET_KEY', name: 'a Turnstile' },
  hcaptcha: { field: 'hcaptchaSecret', variable: 'HCAPTCHA_SECRET_KEY', name: 'an hCaptcha' },
  recaptcha: { field: 'recaptchaSecret', variable: 'RECAPTCHA_SECRET_KEY', name: 'a reCAPTCHA' },
} as const;

/** Secrets from the configuration that stand in for a form's own. */
export interface DefaultBotCheckSecrets {
  turnstile?: string | undefined;
  hcaptcha?: string | undefined;
  recaptcha?: string | undefined;
}

function settingsToRow(s: FormSettingsInput): FormRowUpdate {
  const row: FormRowUpdate = {};
  if (s.name !== undefined) row.name = s.name;
  if (s.isActive !== undefined) row.is_active = s.isActive ? 1 : 0;
  if (s.accessKey !== undefined) row.access_key = s.accessKey;
  if (s.turnstileSecret !== undefined) row.turnstile_secret = s.turnstileSecret;
  if (s.successUrl !== undefined) row.success_url = s.successUrl;
  if (s.errorUrl !== undefined) row.error_url = s.errorUrl;
  if (s.allowedRedirectHosts !== undefined) row.allowed_redirect_hosts = JSON.stringify(s.allowedRedirectHosts);
  if (s.turnstileSiteKey !== undefined) row.turnstile_site_key = s.turnstileSiteKey;
  if (s.blockedTerms !== undefined) row.blocked_terms = JSON.stringify([...new Set(s.blockedTerms)]);
  if (s.blockedEmails !== undefined) row.blocked_emails = JSON.stringify([...new Set(s.blockedEmails)]);
  if (s.allowedOrigins !== undefined) row.allowed_origins = JSON.stringify([...new Set(s.allowedOrigins)]);
  if (s.maxLinks !== undefined) row.max_links = s.maxLinks;
  if (s.retentionDays !== undefined) row.retention_days = s.retentionDays;
  if (s.storeIp !== undefined) row.store_ip = s.storeIp;
  if (s.notifyMode !== undefined) row.notify_mode = s.notifyMode;
  if (s.botCheck !== undefined) {
    row.bot_check = s.botCheck;
    row.require_bot_check = s.botCheck === 'turnstile' ? 1 : 0;
  }
  if (s.hcaptchaSecret !== undefined) row.hcaptcha_secret = s.hcaptchaSecret;
  if (s.hcaptchaSiteKey !== undefined) row.hcaptcha_site_key = s.hcaptchaSiteKey;
  if (s.recaptchaSecret !== undefined) row.recaptcha_secret = s.recaptchaSecret;
  if (s.recaptchaSiteKey !== undefined) row.recaptcha_site_key = s.recaptchaSiteKey;
  if (s.recaptchaMinScore !== undefined) row.recaptcha_min_score = s.recaptchaMinScore;
  if (s.altchaComplexity !== undefined) row.altcha_complexity = s.altchaComplexity;
  if (s.minFillSeconds !== undefined) row.min_fill_seconds = s.minFillSeconds;
  if (s.spamFilter !== undefined) row.spam_filter = s.spamFilter;
  if (s.notifySubject !== undefined) row.notify_subject = s.notifySubject;
  if (s.autoReply?.enabled !== undefined) row.auto_reply_enabled = s.autoReply.enabled ? 1 : 0;
  if (s.autoReply?.field !== undefined) row.auto_reply_field = s.autoReply.field;
  if (s.autoReply?.subject !== undefined) row.auto_reply_subject = s.autoReply.subject;
  if (s.autoReply?.body !== undefined) row.auto_reply_body = s.autoReply.body;
  if (s.autoReplyDailyLimit !== undefined) row.auto_reply_daily_limit = s.autoReplyDailyLimit;
  if (s.thanksTitle !== undefined) row.thanks_title = s.thanksTitle === '' ? null : s.thanksTitle;
  if (s.thanksMessage !== undefined) row.thanks_message = s.thanksMessage === '' ? null : s.thanksMessage;
  if (s.language !== undefined) row.language = s.language;
  if (s.requiredFields !== undefined) row.required_fields = JSON.stringify([...new Set(s.requiredFields)]);
  if (s.files !== undefined) row.files_mode = s.files;
  if (s.maxFiles !== undefined) row.max_files = s.maxFiles;
  if (s.maxFileBytes !== undefined) row.max_file_bytes = s.maxFileBytes;
  if (s.maxTotalBytes !== undefined) row.max_total_bytes = s.maxTotalBytes;
  if (s.fileTypes !== undefined) row.file_types = JSON.stringify([...new Set(s.fileTypes)]);
  return row;
}

export class FormService {
  /** Forms (and IDs naming none) the submit path read recently; changes through this process drop their entry. */
  private readonly cache: FormCache;
  /** Which IDs can name a form: an invented one is refused without a read (see FormDirectory). */
  private readonly directory: FormDirectory;

  constructor(
    private readonly db: Executor,
    /** TURNSTILE_SECRET_KEY and the others: a form may use a vendor without a secret of its own only when its variable is set. */
    private readonly defaultSecrets: DefaultBotCheckSecrets = {},
    /** The form cache's clock (tests stop it). */
    cacheClock: () => number = Date.now,
    private readonly audit?: AuditService,
  ) {
    this.cache = new FormCache(async (formIds) => (await findFormRowsByIds(db, formIds)).map(formRowToForm), cacheClock);
    this.directory = new FormDirectory(
      { idsAfter: (afterId, limit) => findFormIdsAfter(db, afterId, limit), idsCreatedSince: (since) => findFormIdsCreatedSince(db, since) },
      FORM_CACHE_TTL_MS,
      cacheClock,
    );
  }

  /**
   * Requiring a bot check with no secret anywhere would silently file every submission as spam
   * (docs/bot-checks.md): refused here, so the CLI and the dashboard both get the error.
   * ALTCHA needs none: Formgate signs its own challenges.
   */
  private checkBotCheckSecret(settings: FormSettingsInput, current?: Form): void {
    const vendor = settings.botCheck ?? current?.botCheck ?? 'none';
    if (vendor === 'none' || vendor === 'altcha') return;
    const { field, variable, name } = VENDOR_SECRETS[vendor];
    const secret = settings[field] !== undefined ? settings[field] : (current?.[field] ?? null);
    if (secret === null && this.defaultSecrets[vendor] === undefined) {
      throw validationFailed(`The bot check needs ${name} secret: set one for this form, or ${variable} for all forms.`, {
        [field]: `required when the bot check is ${vendor} and ${variable} is not set`,
      });
    }
  }

  /**
   * findForm for the hot submit path: a form, or the absence of one, is read at most once a
   * second per process (see FormCache), and an ID of another shape than the ones this service
   * makes is unknown without a query. A form created or changed through another instance is seen
   * within FORM_CACHE_TTL_MS.
   */
  async findFormCached(formId: string): Promise<Form | undefined> {
    const known = this.peekFormCached(formId);
    return known === undefined ? this.cache.find(formId) : (known ?? undefined);
  }

  /**
   * findFormCached's answer when it needs no read: the form, null when none has the ID, undefined
   * when unknown yet. An ID the form directory excludes is null without a cache entry, so that a
   * flood of invented IDs costs neither a read nor a slot in the cache.
   */
  peekFormCached(formId: string): Form | null | undefined {
    if (!hasIdShape('frm', formId)) return null;
    const cached = this.cache.peek(formId);
    if (cached !== undefined) return cached;
    return this.directory.excludes(formId) ? null : undefined;
  }

  /** The form directory's read now, or the one under way (it otherwise reads when a lookup finds it stale). */
  readFormDirectory(): Promise<void> {
    return this.directory.refresh();
  }

  async createForm(accountId: string, input: FormInput & { name: string }): Promise<Form> {
    const { key, settings: given } = splitKey(input);
    const settings = withBotCheck(parseSettings(given, true));
    this.checkBotCheckSecret(settings);
    const now = nowIso();
    const row = {
      id: newId('frm'),
      account_id: accountId,
      name: settings.name!,
      is_active: 1,
      access_key: null,
      require_bot_check: 0,
      turnstile_secret: null,
      success_url: null,
      error_url: null,
      allowed_redirect_hosts: '[]',
      blocked_terms: '[]',
      blocked_emails: '[]',
      allowed_origins: '[]',
      max_links: null,
      retention_days: null,
      store_ip: 'full',
      turnstile_site_key: null,
      notify_mode: 'each',
      bot_check: 'none',
      hcaptcha_secret: null,
      hcaptcha_site_key: null,
      recaptcha_secret: null,
      recaptcha_site_key: null,
      recaptcha_min_score: 0.5,
      altcha_complexity: 'medium',
      min_fill_seconds: 0,
      spam_filter: 'off',
      notify_subject: null,
      auto_reply_enabled: 0,
      auto_reply_field: 'email',
      auto_reply_subject: null,
      auto_reply_body: null,
      auto_reply_daily_limit: 200,
      thanks_title: null,
      thanks_message: null,
      language: 'auto',
      required_fields: '[]',
      files_mode: 'off',
      max_files: DEFAULT_MAX_FILES,
      max_file_bytes: DEFAULT_MAX_FILE_BYTES,
      max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
      file_types: '[]',
      config_key: key ?? null,
      revision: 0,
      created_at: now,
      updated_at: now,
      ...settingsToRow(settings),
    };
    await this.db
      .transaction()
      .execute(async (trx) => {
        if (key && (await findFormRowByConfigKey(trx, accountId, key))) throw keyTaken();
        await insertForm(trx, row);
        await this.audit?.record(trx, accountId, 'form.created', { type: 'form', id: row.id, label: row.name }, { name: row.name, ...(key ? { key } : {}) });
      })
      .catch((err: unknown) => {
        // Two creations with one key at once: the unique index refuses the second.
        throw isUniqueViolation(err) ? keyTaken() : err;
      });
    this.directory.add(row.id);
    return formRowToForm(row);
  }

  /**
   * Updates a form; with accountId, only a form of that account. `input.key` sets or (null)
   * clears its configuration key; `options.expectedRevision` makes it a conditional write.
   */
  async updateForm(formId: string, input: FormInput, accountId?: string, options: FormWriteOptions = {}): Promise<Form> {
    const form = accountId ? await this.getFormOfAccount(accountId, formId) : await this.getForm(formId);
    const { key, settings: given } = splitKey(input);
    const settings = withBotCheck(parseSettings(given, false), form);
    this.checkBotCheckSecret(settings, form);
    await this.db
      .transaction()
      .execute(async (trx) => {
        // Compared with the row as this transaction reads it: a page that sends every setting lists only those it changed.
        const before = await findFormRowById(trx, form.id);
        if (!before) throw notFound('Form');
        const changed = changedSettingNames(settings, before, settingsToRow);
        if (key !== undefined && key !== before.config_key) {
          if (key !== null) {
            const holder = await findFormRowByConfigKey(trx, before.account_id, key);
            if (holder && holder.id !== form.id) throw keyTaken();
          }
          changed.push('key');
          changed.sort();
        }
        const columns = { ...settingsToRow(settings), ...(key !== undefined ? { config_key: key } : {}), updated_at: nowIso() };
        if (!(await updateFormRow(trx, form.id, columns, options.expectedRevision))) throw preconditionFailed('The form');
        if (changed.length === 0) return;
        const name = settings.name ?? before.name;
        await this.audit?.record(trx, form.accountId, 'form.updated', { type: 'form', id: form.id, label: name }, { changed });
      })
      .catch((err: unknown) => {
        throw isUniqueViolation(err) ? keyTaken() : err;
      });
    this.cache.forget(form.id);
    return this.getForm(form.id);
  }

  /** The account's form a configuration file names by `key`, or undefined. */
  async findFormByKey(accountId: string, key: string): Promise<Form | undefined> {
    const row = await findFormRowByConfigKey(this.db, accountId, key);
    return row && formRowToForm(row);
  }

  async findForm(formId: string): Promise<Form | undefined> {
    if (!canBeKey(formId)) return undefined;
    const row = await findFormRowById(this.db, formId);
    return row && formRowToForm(row);
  }

  async getForm(formId: string): Promise<Form> {
    const form = await this.findForm(formId);
    if (!form) throw notFound('Form');
    return form;
  }

  /** A form of another account is as unknown as a missing one. */
  async getFormOfAccount(accountId: string, formId: string): Promise<Form> {
    const row = await findFormRowOfAccount(this.db, accountId, formId);
    if (!row) throw notFound('Form');
    return formRowToForm(row);
  }

  /** Deletes the form row inside the caller's transaction; its rows in other tables cascade. */
  async deleteFormInTransaction(trx: Trx, formId: string): Promise<boolean> {
    // Read in the transaction: on SQLite its connection is the only one.
    const [form] = await findFormRowsByIds(trx, [formId]);
    const deleted = await deleteFormRow(trx, formId);
    if (deleted && form) await this.audit?.record(trx, form.account_id, 'form.deleted', { type: 'form', id: formId, label: form.name }, { name: form.name });
    this.cache.forget(formId);
    return deleted;
  }

  /** Forms that keep submissions for a limited time: [formId, days]. */
  async listRetentionPeriods(): Promise<Array<{ formId: string; days: number }>> {
    return (await listFormRowsWithRetention(this.db)).map((r) => ({ formId: r.id, days: r.retention_days }));
  }

  async listForms(accountId: string): Promise<Form[]> {
    return (await listFormRowsOfAccount(this.db, accountId)).map(formRowToForm);
  }
}
