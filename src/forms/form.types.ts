import type { NotifyMode } from '../notifications/notification.types.js';

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
