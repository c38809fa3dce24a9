/** How a form's email recipients hear of submissions: one per submission, or an hourly or daily digest. */
export const notifyModes = ['each', 'hourly', 'daily'] as const;
export type NotifyMode = (typeof notifyModes)[number];

export interface Form {
  id: string;
  accountId: string;
  name: string;
  isActive: boolean;
  /** When set, submissions must carry this value in `access_key`. */
  accessKey: string | null;
  requireBotCheck: boolean;
  /** Per-form Turnstile secret; falls back to TURNSTILE_SECRET_KEY. */
  turnstileSecret: string | null;
  successUrl: string | null;
  errorUrl: string | null;
  allowedRedirectHosts: string[];
  /** Email notifications: one per submission, or an hourly or daily digest. */
  notifyMode: NotifyMode;
  createdAt: string;
  updatedAt: string;
  /** Turnstile site key for the dashboard's snippet (public; the secret stays server-side). */
  turnstileSiteKey: string | null;
  /** Spam rules (docs/spam-and-privacy.md), lower-case. */
  blockedTerms: string[];
  /** Exact addresses and `@domain` entries (the domain and its subdomains), lower-case. */
  blockedEmails: string[];
  /** Hosts a submission's Origin (or Referer) must name; empty means any origin. */
  allowedOrigins: string[];
  /** More links than this is spam; null means no limit. */
  maxLinks: number | null;
  /** Submissions older than this many days are purged; null keeps them. */
  retentionDays: number | null;
  storeIp: StoreIp;
  /** Field names every submission must hold a non-blank value in. */
  requiredFields: string[];
  /** Which bot check submissions must pass (docs/bot-checks.md); `requireBotCheck` is `turnstile`. */
  botCheck: BotCheckVendor;
  hcaptchaSecret: string | null;
  hcaptchaSiteKey: string | null;
  recaptchaSecret: string | null;
  recaptchaSiteKey: string | null;
  /** reCAPTCHA v3 tokens scoring below this fail. */
  recaptchaMinScore: number;
  altchaComplexity: AltchaComplexity;
  /** An ALTCHA solution sent sooner than this after its challenge was issued is spam (`too_fast`); 0 = off. */
  minFillSeconds: number;
  spamFilter: SpamFilterMode;
  /** Template of the owner notification's subject (docs/email.md, Templates). */
  notifySubject: string;
  autoReply: AutoReply;
  /** Confirmations per form and UTC day; more are skipped as `daily_cap`. */
  autoReplyDailyLimit: number;
  /** Custom thank-you page; both null means the plain /thanks. */
  thanksTitle: string | null;
  thanksMessage: string | null;
  language: FormLanguage;
  /** Uploads (docs/files.md): `off` parses file parts and drops them, `store` keeps them. */
  files: FilesMode;
  maxFiles: number;
  /** Per file; the submit path also holds it to FILES_MAX_BYTES. */
  maxFileBytes: number;
  maxTotalBytes: number;
  /** MIME types and group names (FILE_TYPE_GROUPS); empty means the default groups. */
  fileTypes: string[];
  /** The stable name a configuration file gives the form (docs/api.md, Writes); unique per account. */
  key: string | null;
  /** Counted up by every change; the API's ETag covers it. */
  revision: number;
}

export const FILES_MODES = ['off', 'store'] as const;
export type FilesMode = (typeof FILES_MODES)[number];
export const DEFAULT_MAX_FILES = 5;
export const MAX_MAX_FILES = 20;
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_TOTAL_BYTES = 25 * 1024 * 1024;

export const DEFAULT_NOTIFY_SUBJECT = 'New submission: {{form.name}}';

/** Languages of the public pages and default confirmation texts; `auto` follows Accept-Language. */
export const formLanguages = ['auto', 'en', 'de', 'fr', 'es', 'pt'] as const;
export type FormLanguage = (typeof formLanguages)[number];

/** The confirmation email to the submitter; null subject or body means the language's default. */
export interface AutoReply {
  enabled: boolean;
  field: string;
  subject: string | null;
  body: string | null;
}

export type StoreIp = 'full' | 'none';
export const BOT_CHECK_VENDORS = ['none', 'turnstile', 'hcaptcha', 'recaptcha', 'altcha'] as const;
export type BotCheckVendor = (typeof BOT_CHECK_VENDORS)[number];
export const ALTCHA_COMPLEXITIES = ['low', 'medium', 'high'] as const;
export type AltchaComplexity = (typeof ALTCHA_COMPLEXITIES)[number];
export const SPAM_FILTER_MODES = ['off', 'learn'] as const;
export type SpamFilterMode = (typeof SPAM_FILTER_MODES)[number];

const oneOf = <T extends string>(values: readonly T[], value: string, fallback: T): T =>
  (values as readonly string[]).includes(value) ? (value as T) : fallback;
export const toBotCheckVendor = (value: string): BotCheckVendor => oneOf(BOT_CHECK_VENDORS, value, 'none');
export const toAltchaComplexity = (value: string): AltchaComplexity => oneOf(ALTCHA_COMPLEXITIES, value, 'medium');
export const toSpamFilterMode = (value: string): SpamFilterMode => oneOf(SPAM_FILTER_MODES, value, 'off');

/** Every setting of a form as the CLI prints it; secrets appear only as "set". */
export type FormSettingsView = Pick<
  Form,
  | 'requireBotCheck' | 'turnstileSiteKey' | 'successUrl' | 'errorUrl' | 'allowedRedirectHosts' | 'blockedTerms'
  | 'blockedEmails' | 'allowedOrigins' | 'maxLinks' | 'retentionDays' | 'storeIp' | 'botCheck' | 'hcaptchaSiteKey'
  | 'recaptchaSiteKey' | 'recaptchaMinScore' | 'altchaComplexity' | 'minFillSeconds' | 'spamFilter' | 'notifySubject' | 'autoReply'
  | 'autoReplyDailyLimit' | 'thanksTitle' | 'thanksMessage' | 'language' | 'requiredFields'
  | 'files' | 'maxFiles' | 'maxFileBytes' | 'maxTotalBytes' | 'fileTypes'
> & { accessKey: 'set' | null; turnstileSecret: 'set' | null; hcaptchaSecret: 'set' | null; recaptchaSecret: 'set' | null };

export function formToSettingsView(form: Form): FormSettingsView {
  return {
    accessKey: form.accessKey === null ? null : 'set',
    requireBotCheck: form.requireBotCheck,
    turnstileSecret: form.turnstileSecret === null ? null : 'set',
    turnstileSiteKey: form.turnstileSiteKey,
    successUrl: form.successUrl,
    errorUrl: form.errorUrl,
    allowedRedirectHosts: form.allowedRedirectHosts,
    blockedTerms: form.blockedTerms,
    blockedEmails: form.blockedEmails,
    allowedOrigins: form.allowedOrigins,
    maxLinks: form.maxLinks,
    retentionDays: form.retentionDays,
    storeIp: form.storeIp,
    botCheck: form.botCheck,
    hcaptchaSecret: form.hcaptchaSecret === null ? null : 'set',
    hcaptchaSiteKey: form.hcaptchaSiteKey,
    recaptchaSecret: form.recaptchaSecret === null ? null : 'set',
    recaptchaSiteKey: form.recaptchaSiteKey,
    recaptchaMinScore: form.recaptchaMinScore,
    altchaComplexity: form.altchaComplexity,
    minFillSeconds: form.minFillSeconds,
    spamFilter: form.spamFilter,
    notifySubject: form.notifySubject,
    autoReply: form.autoReply,
    autoReplyDailyLimit: form.autoReplyDailyLimit,
    thanksTitle: form.thanksTitle,
    thanksMessage: form.thanksMessage,
    language: form.language,
    requiredFields: form.requiredFields,
    files: form.files,
    maxFiles: form.maxFiles,
    maxFileBytes: form.maxFileBytes,
    maxTotalBytes: form.maxTotalBytes,
    fileTypes: form.fileTypes,
  };
}

/** The API's Form resource (management API list item, docs/api.md). */
export interface ApiForm {
  id: string;
  name: string;
  isActive: 0 | 1;
  createdAt: string;
}

export function formToApiForm(form: Form): ApiForm {
  return { id: form.id, name: form.name, isActive: form.isActive ? 1 : 0, createdAt: form.createdAt };
}
