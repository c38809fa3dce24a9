import type { Role } from './member.types.js';

const ALL: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];
const TRIAGERS: readonly Role[] = ['owner', 'admin', 'member'];
const MANAGERS: readonly Role[] = ['owner', 'admin'];
const OWNER: readonly Role[] = ['owner'];

/**
 * Which role may do what: the one table every dashboard route's check and
 * every service-level check reads. `self` is what any signed-in member does to their own user
 * (password, email, sessions, leaving, switching accounts).
 */
export const PERMISSIONS = {
  self: ALL,
  'submissions.read': ALL,
  'submissions.export': ALL,
  'members.read': ALL,
  'submissions.triage': TRIAGERS,
  'deliveries.resend': TRIAGERS,
  'forms.manage': MANAGERS,
  'hooks.manage': MANAGERS,
  'integrations.manage': MANAGERS,
  'keys.manage': MANAGERS,
  'members.manage': MANAGERS,
  'audit.read': MANAGERS,
  'account.delete': OWNER,
  'ownership.transfer': OWNER,
  'team.rename': OWNER,
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof PERMISSIONS;

export function roleMay(role: Role | undefined, action: Action): boolean {
  return role !== undefined && (PERMISSIONS[action] as readonly Role[]).includes(role);
}
