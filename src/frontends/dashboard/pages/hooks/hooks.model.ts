import { planAllowsHooks } from '../../../../features/accounts/account.types.js';
import type { Plan } from '../../../../platform/config.js';
import type { Form } from '../../../../features/forms/form.types.js';
import type { DeliveryAttempt, Hook } from '../../../../features/hooks/hook.types.js';

/** A delivery outcome in words an owner can act on. */
export function readableDeliveryError(error: string | null, status: number | null): string {
  if (error === null) return status !== null && (status < 200 || status >= 300) ? `The target answered HTTP ${status} (2xx expected).` : '';
  if (error === 'timeout') return 'No answer in time: the target took longer than the hook timeout.';
  if (error.startsWith('refused:')) return `Not sent: ${error.slice('refused:'.length).trim()} (private and local addresses are refused).`;
  if (error === 'ECONNREFUSED') return 'Connection refused: nothing is listening at that address.';
  if (error === 'ENOTFOUND' || error === 'EAI_AGAIN') return 'The host name could not be resolved (DNS).';
  if (error === 'ECONNRESET' || error === 'UND_ERR_SOCKET') return 'The connection was closed by the target before it answered.';
  if (/CERT|SELF_SIGNED|TLS|SSL/i.test(error)) return `The target's TLS certificate was not accepted (${error}).`;
  return `Delivery failed: ${error}`;
}

/** The hooks page's model: each hook with its form's name and its recent attempts in words. */
export function hooksPageModel(input: {
  planId: Plan;
  /** The instance's admin can change plans; others are told to ask them. */
  isAdmin?: boolean;
  hooks: Hook[];
  /** Recent deliveries of each hook, in the order of `hooks`. */
  attempts: DeliveryAttempt[][];
  forms: Form[];
  values: { formId?: string; targetUrl?: string };
  fieldErrors: Record<string, string>;
}): Record<string, unknown> {
  const formNames = new Map(input.forms.map((f) => [f.id, f.name]));
  return {
    hooks: input.hooks.map((hook, i) => ({
      ...hook,
      formName: formNames.get(hook.formId) ?? hook.formId,
      attempts: (input.attempts[i] ?? []).map((a) => ({ ...a, readableError: readableDeliveryError(a.error, a.responseStatus) })),
    })),
    forms: input.forms,
    planId: input.planId,
    isAdmin: input.isAdmin === true,
    planAllowsHooks: planAllowsHooks(input.planId),
    values: input.values,
    fieldErrors: input.fieldErrors,
  };
}
