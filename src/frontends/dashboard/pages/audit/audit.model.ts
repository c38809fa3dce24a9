import { AUDIT_ACTIONS, type AuditAction, type AuditEvent } from '../../../../features/audit/audit.types.js';

const ACTION_LABELS: Record<AuditAction, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'form.created': 'Form created',
  'form.updated': 'Form settings changed',
  'form.deleted': 'Form deleted',
  'notification.recipient_added': 'Notification recipient added',
  'notification.recipient_removed': 'Notification recipient removed',
  'hook.added': 'Hook added',
  'hook.removed': 'Hook removed',
  'integration.added': 'Integration added',
  'integration.removed': 'Integration removed',
  'integration.updated': 'Integration changed',
  'integration.enabled': 'Integration turned on',
  'integration.disabled': 'Integration turned off',
  'submissions.marked': 'Submissions marked',
  'submissions.deleted': 'Submissions deleted',
  'submissions.exported': 'Submissions exported',
  'submissions.erased': 'Submissions erased by email',
  'submissions.assigned': 'Submissions assigned',
  'submissions.state_changed': 'Submissions marked done or reopened',
  'submissions.tagged': 'Tag added',
  'submissions.untagged': 'Tag removed',
  'submission.notes_changed': 'Notes changed',
  'delivery.sent_again': 'Delivery sent again',
  'member.added': 'Member added',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'member.role_changed': 'Role changed',
  'invitation.created': 'Invitation sent',
  'invitation.revoked': 'Invitation revoked',
  'invitation.accepted': 'Invitation accepted',
  'ownership.transferred': 'Ownership handed over',
  'user.password_changed': 'Password changed',
  'user.email_changed': 'Email changed',
  'account.plan_changed': 'Plan changed (admin)',
  'account.disabled': 'Account disabled (admin)',
  'account.enabled': 'Account enabled (admin)',
  'account.deleted': 'Account deleted (admin)',
  'account.renamed': 'Team renamed',
  'signup.mode_changed': 'Sign-up changed (admin)',
};

export const auditActionOptions = AUDIT_ACTIONS.map((value) => ({ value, label: ACTION_LABELS[value] }));

export function isAuditAction(value: string | undefined): value is AuditAction {
  return value !== undefined && (AUDIT_ACTIONS as readonly string[]).includes(value);
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.map(valueText).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Details as one line a person reads: `name: Zapier · changed: name, successUrl`. */
function detailsText(details: AuditEvent['details']): string {
  if (!details) return '';
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${valueText(value)}`)
    .join(' · ');
}

export function auditEventRows(events: AuditEvent[]) {
  return events.map((event) => ({ ...event, actionLabel: ACTION_LABELS[event.action] ?? event.action, detailsText: detailsText(event.details) }));
}
