import { AppError } from '../../platform/errors.js';
import { armoredAgeProblem } from '../../platform/lib/age.js';
import type { SubmissionPayload } from '../submissions/submission.types.js';

/** The one field a sealed form's payload holds (docs/sealed-forms.md). */
export const SEALED_FIELD = 'sealed';

const MESSAGE = 'This form is sealed: it accepts only the field "sealed" holding one armored age file, besides the control fields.';

export const sealRequired = (fieldErrors?: Record<string, string>): AppError =>
  new AppError('seal_required', MESSAGE, fieldErrors ? { fieldErrors } : {});

/** A file part sent to a sealed form: its content would reach the server in clear. */
export const fileOnSealedForm = (): AppError => sealRequired({ [SEALED_FIELD]: 'a sealed form takes no files' });

/**
 * Throws seal_required unless the payload (control fields already taken out) is exactly
 * `{ sealed: "<armored age file>" }` whose header names X25519 recipients only. Other field
 * names are not echoed back: a name may itself say something of the visitor.
 */
export function checkSealedPayload(payload: SubmissionPayload): void {
  const names = Object.keys(payload);
  if (names.length !== 1 || names[0] !== SEALED_FIELD) throw sealRequired();
  const value = payload[SEALED_FIELD];
  if (typeof value !== 'string') throw sealRequired({ [SEALED_FIELD]: 'must be one armored age file' });
  const problem = armoredAgeProblem(value);
  if (problem) throw sealRequired({ [SEALED_FIELD]: problem });
}
