import type { Form } from '../forms/form.types.js';
import type { SecretSetting } from './config-file.schema.js';
import type { FormState, SecretState } from './config.types.js';

/** A stored secret as a target on this machine sees it: with its value. */
export const readSecret = (value: string | null): SecretState => (value === null ? { set: false } : { set: true, value });

/** Every setting of a form that is not a secret, in the file's terms. */
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
