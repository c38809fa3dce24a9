import { findServiceKind, storedAsFieldValue } from '../integrations/integration.service.js';
import type { Form } from '../forms/form.types.js';
import type { SecretSetting } from './config-file.schema.js';
import type { FormState, IntegrationState, SecretState } from './config.types.js';

/** A stored secret as a target on this machine sees it: with its value. */
export const readSecret = (value: string | null): SecretState => (value === null ? { set: false } : { set: true, value });

/**
 * Every setting of a form that is not a secret, in the file's terms, listed in the file schema's
 * order (the order the API target reads them in), so `export` prints the same text either way.
 */
export function formToFileSettings(form: Form): FormState['settings'] {
  return {
    isActive: form.isActive,
    successUrl: form.successUrl,
    errorUrl: form.errorUrl,
    allowedRedirectHosts: form.allowedRedirectHosts,
    turnstileSiteKey: form.turnstileSiteKey,
    blockedTerms: form.blockedTerms,
    blockedEmails: form.blockedEmails,
    allowedOrigins: form.allowedOrigins,
    maxLinks: form.maxLinks,
    retentionDays: form.retentionDays,
    storeIp: form.storeIp,
    notifyMode: form.notifyMode,
    botCheck: form.botCheck,
    hcaptchaSiteKey: form.hcaptchaSiteKey,
    recaptchaSiteKey: form.recaptchaSiteKey,
    recaptchaMinScore: form.recaptchaMinScore,
    altchaComplexity: form.altchaComplexity,
    minFillSeconds: form.minFillSeconds,
    spamFilter: form.spamFilter,
    notifySubject: form.notifySubject,
    autoReply: { ...form.autoReply },
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

export function formSecrets(form: Form): Record<SecretSetting, SecretState> {
  return {
    accessKey: readSecret(form.accessKey),
    turnstileSecret: readSecret(form.turnstileSecret),
    hcaptchaSecret: readSecret(form.hcaptchaSecret),
    recaptchaSecret: readSecret(form.recaptchaSecret),
  };
}

/**
 * A service kind's settings by field name, as the file writes them, and its secrets as the target
 * sees them: `secret(name)` gives each one's state. Empty for the chat kinds.
 */
export function serviceFields(kind: string, settings: Record<string, unknown>, secret: (name: string) => SecretState): Pick<IntegrationState, 'settings' | 'secrets'> {
  const state: Pick<IntegrationState, 'settings' | 'secrets'> = { settings: {}, secrets: {} };
  for (const field of findServiceKind(kind)?.fields ?? []) {
    if (field.secret) {
      state.secrets[field.name] = secret(field.name);
      continue;
    }
    const value = storedAsFieldValue(field, settings[field.name]);
    if (value !== undefined) state.settings[field.name] = value;
  }
  return state;
}

/** A stored service secret with its value, as text (a key file's kept parts as JSON). */
export const readStoredSecret = (value: unknown): SecretState =>
  value === undefined || value === null ? { set: false } : { set: true, value: typeof value === 'string' ? value : JSON.stringify(value) };
