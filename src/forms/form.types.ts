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
  /** Spam rules (contract section 9), lower-case. */
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
}

export type StoreIp = 'full' | 'none';

/** Every setting of a form as the CLI prints it; secrets appear only as "set". */
export type FormSettingsView = Pick<
  Form,
  | 'requireBotCheck' | 'turnstileSiteKey' | 'successUrl' | 'errorUrl' | 'allowedRedirectHosts' | 'blockedTerms'
  | 'blockedEmails' | 'allowedOrigins' | 'maxLinks' | 'retentionDays' | 'storeIp' | 'requiredFields'
> & { accessKey: 'set' | null; turnstileSecret: 'set' | null };

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
    requiredFields: form.requiredFields,
  };
}

/** The specification's Form resource (management API list item). */
export interface ApiForm {
  id: string;
  name: string;
  isActive: 0 | 1;
  createdAt: string;
}

export function formToApiForm(form: Form): ApiForm {
  return { id: form.id, name: form.name, isActive: form.isActive ? 1 : 0, createdAt: form.createdAt };
}
