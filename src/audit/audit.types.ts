/** Who did something: the signed-in owner, an API key, the operator's CLI, or Formgate itself. */
export type AuditActor =
  | { type: 'account'; id: string; label: string; address?: string }
  | { type: 'user'; id: string; label: string; address?: string }
  | { type: 'api_key'; id: string; label: string; address?: string }
  | { type: 'cli'; label: 'cli' }
  | { type: 'system'; label: 'formgate' };

/** Every action the log records (contract section 17). */
export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'api_key.created',
  'api_key.revoked',
  'form.created',
  'form.updated',
  'form.deleted',
  'hook.added',
  'hook.removed',
  'integration.added',
  'integration.removed',
  'submissions.marked',
  'submissions.deleted',
  'submissions.exported',
  'submissions.erased',
  'delivery.sent_again',
  'member.added',
  'member.removed',
  'member.left',
  'member.role_changed',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
  'ownership.transferred',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditTarget {
  type: string;
  id: string;
}

export interface AuditEvent {
  id: string;
  at: string;
  actor: { type: AuditActor['type']; id: string | null; label: string };
  address: string | null;
  action: AuditAction;
  target: AuditTarget | null;
  details: Record<string, unknown> | null;
}

export interface AuditQuery {
  action?: AuditAction;
  /** An actor's label (an email, `cli`) or id. */
  actor?: string;
  /** Events older than this event id (the previous page's last). */
  before?: string;
  limit?: number;
}
