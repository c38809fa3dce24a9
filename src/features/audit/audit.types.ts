/** Who did something: the signed-in owner, an API key, the operator's CLI, or Formgate itself. */
export type AuditActor =
  | { type: 'account'; id: string; label: string; address?: string }
  | { type: 'user'; id: string; label: string; address?: string }
  | { type: 'api_key'; id: string; label: string; address?: string }
  | { type: 'cli'; label: 'cli' }
  | { type: 'system'; label: 'formgate' };

/** Every action the log records. */
export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'api_key.created',
  'api_key.revoked',
  'form.created',
  'form.updated',
  'form.deleted',
  'notification.recipient_added',
  'notification.recipient_removed',
  'hook.added',
  'hook.removed',
  'integration.added',
  'integration.removed',
  'integration.updated',
  'integration.enabled',
  'integration.disabled',
  'submissions.marked',
  'submissions.deleted',
  'submissions.exported',
  'submissions.erased',
  'submissions.assigned',
  'submissions.state_changed',
  'submissions.tagged',
  'submissions.untagged',
  'submission.notes_changed',
  'delivery.sent_again',
  'member.added',
  'member.removed',
  'member.left',
  'member.role_changed',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
  'ownership.transferred',
  'user.password_changed',
  'user.email_changed',
  'account.plan_changed',
  'account.disabled',
  'account.enabled',
  'account.deleted',
  'account.renamed',
  'signup.mode_changed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * What an event is about. `label` is its name when the event was written (a form's name, a
 * member's email, an integration's name): the log stays readable after the thing is renamed or gone.
 */
export interface AuditTarget {
  type: string;
  id: string;
  label?: string;
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
