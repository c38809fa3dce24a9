import type { Plan } from '../config.js';

export const plans = ['free', 'pro', 'business'] as const satisfies readonly Plan[];

export interface Account {
  id: string;
  email: string;
  displayName: string;
  planId: Plan;
  createdAt: string;
}

/** "Pro or higher" of the specification. */
export function planAllowsHooks(plan: Plan): boolean {
  return plan === 'pro' || plan === 'business';
}
