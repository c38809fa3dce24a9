import { AppError } from '../../platform/errors.js';
import type { FieldValue, SubmissionPayload } from '../submissions/submission.types.js';

/** Text that is not only white space, or any number or boolean (a 0 or a false is an answer). */
function holdsContent(value: FieldValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.some((v) => holdsContent(v));
  return typeof value === 'string' ? value.trim() !== '' : true;
}

/**
 * Refuses a submission with nothing in it (control fields are already removed: an access key
 * alone is empty), then one missing any of the form's required fields, naming each. Runs after
 * the honeypot and the spam rules, so a bot filling only a honeypot still gets the silent answer.
 */
export function checkSubmissionContent(payload: SubmissionPayload, requiredFields: readonly string[]): void {
  const names = Object.keys(payload);
  if (!names.some((name) => holdsContent(payload[name]))) {
    throw new AppError('validation_failed', 'The submission is empty', { textKeys: { message: 'submit.empty' } });
  }
  const fieldErrors: Record<string, string> = {};
  for (const name of requiredFields) {
    const value = Object.prototype.hasOwnProperty.call(payload, name) ? payload[name] : undefined;
    // defineProperty: a required field named __proto__ is data like any other.
    if (!holdsContent(value)) Object.defineProperty(fieldErrors, name, { value: 'This field is required.', enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(fieldErrors).length > 0) {
    throw new AppError('validation_failed', 'Some required fields are missing.', {
      fieldErrors,
      textKeys: { message: 'submit.required_missing', fields: { '*': 'field.required' } },
    });
  }
}
