import { AUDIT_ACTIONS, type AuditAction, type AuditEvent } from '../../audit/audit.types.js';

const ACTION_LABELS: Record<AuditAction, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'form.created': 'Form created',
  'form.updated': 'Form settings changed',
  'form.deleted': 'Form deleted',
  'hook.added': 'Hook added',
  'hook.removed': 'Hook removed',
  'integration.added': 'Integration added',
  'integration.removed': 'Integration removed',
  'submissions.marked': 'Submissions marked',
  'submissions.deleted': 'Submissions deleted',
  'submissions.exported': 'Submissions exported',
  'submissions.erased': 'Submissions erased by email',
  'delivery.sent_again': 'Delivery sent again',
  'member.added': 'Member added',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'member.role_changed': 'Role changed',
  'invitation.created': 'Invitation sent',
  'invitation.revoked': 'Invitation revoked',
  'invitation.accepted': 'Invitation accepted',
  'ownership.transferred': 'Ownership handed over',
};

export const auditActionOptions = AUDIT_ACTIONS.map((value) => ({ value, label: ACTION_LABELS[value] }));

export function isAuditAction(value: string | undefined): value is AuditAction {
  return value !== undefined && (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** Details as one line a person reads: `name: Zapier · changed: name, successUrl`. */
function detailsText(details: AuditEvent['details']): string {
  if (!details) return '';
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join(' · ');
}

export function auditEventRows(events: AuditEvent[]) {
  return events.map((event) => ({ ...event, actionLabel: ACTION_LABELS[event.action] ?? event.action, detailsText: detailsText(event.details) }));
}
