/** A member's role in an account, strongest first. */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Roles an invitation or a role change may give: ownership moves only by a handover. */
export const GRANTABLE_ROLES = ['admin', 'member', 'viewer'] as const satisfies readonly Role[];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export interface Member {
  userId: string;
  email: string;
  displayName: string;
  role: Role;
  createdAt: string;
}

export interface Invitation {
  id: string;
  accountId: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
  state: 'pending' | 'accepted' | 'revoked' | 'expired';
}

/** An invitation as the invited person sees it: which account, with which role, until when. */
export interface WaitingInvitation {
  id: string;
  accountId: string;
  /** The account's owner's email. */
  accountEmail: string;
  /** The team's name (its owner's email when it has none). */
  teamName: string;
  role: Role;
  expiresAt: string;
}

/** One of a user's accounts, for the account switcher. */
export interface MembershipSummary {
  accountId: string;
  /** The account's owner's email. */
  accountEmail: string;
  /** The team's name (its owner's email when it has none). */
  teamName: string;
  role: Role;
}
