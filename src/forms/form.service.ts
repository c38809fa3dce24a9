import { z } from 'zod';
import type { Executor, Trx } from '../db/database.js';
import { notFound, validationFailed } from '../errors.js';
import { newId } from '../lib/ids.js';
import { canBeKey } from '../lib/text.js';
import { nowIso } from '../lib/time.js';
import type { FormRowUpdate } from '../db/schema.js';
import {
  deleteFormRow,
  findFormRowById,
  findFormRowOfAccount,
  formRowToForm,
  insertForm,
  listFormRowsOfAccount,
  listFormRowsWithRetention,
  updateFormRow,
} from './form.repository.js';
import { notifyModes, type Form } from './form.types.js';
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

const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
};

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
  // Names as the page's inputs carry them: any text up to the submit path's 256-character limit.
  requiredFields: z.array(z.string().trim().min(1, 'must be a field name').max(256, 'must be at most 256 characters')).max(50),
});

export type FormSettings = z.infer<typeof formSettingsSchema>;
export type FormSettingsInput = Partial<FormSettings>;

function parseSettings(input: FormSettingsInput, requireName: boolean): FormSettingsInput {
  const schema = requireName ? formSettingsSchema.partial().required({ name: true }) : formSettingsSchema.partial();
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0]);
      // The first problem of a field; for a list, which entry it is.
      fieldErrors[field] ??= typeof issue.path[1] === 'number' ? `entry ${issue.path[1] + 1}: ${issue.message}` : issue.message;
    }
    throw validationFailed('The form settings are not valid.', fieldErrors);
  }
  return parsed.data;
}

function settingsToRow(s: FormSettingsInput): FormRowUpdate {
  const row: FormRowUpdate = {};
  if (s.name !== undefined) row.name = s.name;
  if (s.isActive !== undefined) row.is_active = s.isActive ? 1 : 0;
  if (s.accessKey !== undefined) row.access_key = s.accessKey;
  if (s.requireBotCheck !== undefined) row.require_bot_check = s.requireBotCheck ? 1 : 0;
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
  if (s.requiredFields !== undefined) row.required_fields = JSON.stringify([...new Set(s.requiredFields)]);
  return row;
}

/** How long the submit path may use a form it read, before reading it again. */
const FORM_CACHE_TTL_MS = 1000;

export class FormService {
  /** Forms the submit path read recently; updates through this process drop their entry. */
  private readonly recent = new Map<string, { form: Form | undefined; until: number }>();

  constructor(
    private readonly db: Executor,
    /** TURNSTILE_SECRET_KEY: a form may require the bot check without a secret of its own only when it is set. */
    private readonly defaultTurnstileSecret?: string,
  ) {}

  /**
   * Requiring the bot check with no secret anywhere would silently file every submission as spam
   * (contract section 9): refused here, so the CLI and the dashboard both get the error.
   */
  private checkBotCheckSecret(settings: FormSettingsInput, current?: Form): void {
    const required = settings.requireBotCheck ?? current?.requireBotCheck ?? false;
    const secret = settings.turnstileSecret !== undefined ? settings.turnstileSecret : (current?.turnstileSecret ?? null);
    if (required && secret === null && this.defaultTurnstileSecret === undefined) {
      throw validationFailed('The bot check needs a Turnstile secret: set one for this form, or TURNSTILE_SECRET_KEY for all forms.', {
        turnstileSecret: 'required when the bot check is required and TURNSTILE_SECRET_KEY is not set',
      });
    }
  }

  /**
   * findForm for the hot submit path: a form is read at most once a second per process. A
   * change made through another instance is seen within FORM_CACHE_TTL_MS.
   */
  async findFormCached(formId: string): Promise<Form | undefined> {
    // The submit limiter looks the form up before any route check has run.
    if (!canBeKey(formId)) return undefined;
    const now = Date.now();
    const hit = this.recent.get(formId);
    if (hit && hit.until > now) return hit.form;
    const form = await this.findForm(formId);
    if (this.recent.size > 10_000) this.recent.clear();
    this.recent.set(formId, { form, until: now + FORM_CACHE_TTL_MS });
    return form;
  }

  async createForm(accountId: string, input: FormSettingsInput & { name: string }): Promise<Form> {
    const settings = parseSettings(input, true);
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
      required_fields: '[]',
      created_at: now,
      updated_at: now,
      ...settingsToRow(settings),
    };
    await insertForm(this.db, row);
    return formRowToForm(row);
  }

  /** Updates a form; with accountId, only a form of that account. */
  async updateForm(formId: string, input: FormSettingsInput, accountId?: string): Promise<Form> {
    const settings = parseSettings(input, false);
    const form = accountId ? await this.getFormOfAccount(accountId, formId) : await this.getForm(formId);
    this.checkBotCheckSecret(settings, form);
    await updateFormRow(this.db, form.id, { ...settingsToRow(settings), updated_at: nowIso() });
    this.recent.delete(form.id);
    return this.getForm(form.id);
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
    const deleted = await deleteFormRow(trx, formId);
    this.recent.delete(formId);
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
