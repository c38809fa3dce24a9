import type { User } from '../accounts/account.types.js';

/** Who the provider says signed in, after the ID token's checks. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string;
  /** The provider's `email_verified`: only a verified address may link to an existing account. */
  emailVerified: boolean;
  name?: string;
}

/** Why a single sign-on did not sign anyone in; each has its own sentence on the failure page. */
export type SsoFailureReason =
  | 'expired'
  | 'state_mismatch'
  | 'cancelled'
  | 'provider_error'
  | 'provider_unreachable'
  | 'code_rejected'
  | 'id_token_invalid'
  | 'no_email'
  | 'email_unverified'
  | 'signup_closed'
  | 'disabled'
  | 'no_account';

export type SsoSignInResult = { ok: true; user: User; created: boolean } | { ok: false; reason: SsoFailureReason; detail?: string };
