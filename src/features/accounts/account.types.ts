import type { Plan } from '../../platform/config.js';

export const plans = ['free', 'pro', 'business'] as const satisfies readonly Plan[];

export interface Account {
  id: string;
  email: string;
  displayName: string;
  planId: Plan;
  createdAt: string;
  /** A disabled account cannot log in and its API keys answer 401. */
  disabled: boolean;
  /** The IANA zone the account reads times in (dashboard and emails); null: not known yet, UTC. */
  timeZone: string | null;
  /** The team's name: its owner's choice, else the owner's email. */
  teamName: string;
}

/** Hooks need the Pro plan or higher (docs/api.md, the management API). */
export function planAllowsHooks(plan: Plan): boolean {
  return plan === 'pro' || plan === 'business';
}

/** A person who signs in to the dashboard; belongs to accounts through memberships (docs/teams.md). */
export interface User {
  id: string;
  email: string;
  displayName: string;
  createdAt: string;
  /** The instance's admin, who sees the Admin page: the first user, or one marked with the CLI. */
  isAdmin: boolean;
}
