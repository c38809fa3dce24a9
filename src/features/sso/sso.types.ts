import type { User } from '../accounts/account.types.js';
import type { WaitingInvitation } from '../members/member.types.js';

/** Who the provider says signed in, after the ID token's checks. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string;
  /** The provider's `email_verified`: only a verified address may link to an existing account. */
  emailVerified: boolean;
  name?: string;
}

/**
 * What a trip to the provider is for, fixed when it starts (kept with its state and nonce): a
 * sign-in; linking the identity to the signed-in user (the Account page); or joining the account
 * of one invitation the person chose.
 */
export type SsoIntent =
  | { kind: 'sign_in' }
  | { kind: 'link'; userId: string }
  | { kind: 'accept'; invitationId: string }
  /** The signed-in user proves themselves again, where a password user would type the password. */
  | { kind: 'reauth'; userId: string };

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
  | 'account_unconfirmed'
  | 'signup_by_invitation'
  | 'signup_closed'
  | 'disabled'
  | 'no_account'
  | 'identity_taken'
  | 'link_signed_out'
  | 'reauth_other_identity'
  | 'invitation_gone';

export type SsoSignInResult =
  /** `accountId`: the account an accepted invitation joined, where the session starts. */
  | { kind: 'signed_in'; user: User; accountId?: string }
  | { kind: 'linked'; user: User }
  | { kind: 'reauthenticated'; user: User }
  /** Signed in at the provider, in no account here yet, and invited: the person picks what to join. */
  | { kind: 'invitations'; email: string; invitations: WaitingInvitation[] }
  /** `email`: the address the provider sent, when the page names it. */
  | { kind: 'refused'; reason: SsoFailureReason; email?: string; detail?: string };

/** A provider identity linked to a user, as the Account page lists it. */
export interface LinkedIdentity {
  issuer: string;
  /** The address the provider last sent. */
  email: string;
  createdAt: string;
  lastSignInAt: string;
}
