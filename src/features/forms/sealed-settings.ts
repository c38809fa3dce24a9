import { z } from 'zod';
import { notFound, validationFailed } from '../../platform/errors.js';
import { isX25519Recipient } from '../../platform/lib/age.js';
import { MAX_SEALED_RECIPIENTS, type FilesMode, type SealedSetting } from './form.types.js';

/** The sealed form setting (docs/sealed-forms.md): its validation and the list's changes. */

const sealedRecipient = z
  .string()
  .trim()
  .refine(isX25519Recipient, 'must be an age X25519 recipient (age1… as age-keygen prints it)');

// A label is shown on the settings page only; control characters are refused.
const label = z
  .string()
  .max(100, 'labels have at most 100 characters')
  // eslint-disable-next-line no-control-regex
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must be plain text')
  .nullish()
  .transform((value) => (value?.trim() ? value.trim() : null));

/** A recipient alone, or with whose it is; null or blank labels are none. */
const sealedRecipientEntry = z.union([
  sealedRecipient.transform((recipient) => ({ recipient, label: null })),
  z.object({ recipient: sealedRecipient, label }),
]);

/** Sealed forms: the recipients, each once (the first label kept); null unseals. */
export const sealedSchema = z.object({
  recipients: z
    .array(sealedRecipientEntry)
    .min(1, 'a sealed form needs at least one recipient')
    .max(MAX_SEALED_RECIPIENTS, `at most ${MAX_SEALED_RECIPIENTS} recipients`)
    .transform((entries) => entries.filter((entry, i) => entries.findIndex((other) => other.recipient === entry.recipient) === i)),
});

export interface SealedRecipientInput {
  recipient: string;
  label?: string | null | undefined;
}

/**
 * A sealed form's fields reach the server only as one ciphertext, and a file would arrive in
 * clear beside it: keeping files and sealing exclude each other. `settings` is what changes,
 * `current` the form as it is.
 */
export function checkSealedWithoutFiles(
  settings: { sealed?: SealedSetting | null | undefined; files?: FilesMode | undefined },
  current?: { sealed: SealedSetting | null; files: FilesMode },
): void {
  const sealed = settings.sealed !== undefined ? settings.sealed : (current?.sealed ?? null);
  const files = settings.files ?? current?.files ?? 'off';
  if (sealed === null || files === 'off') return;
  const field = settings.sealed !== undefined && settings.sealed !== null ? 'sealed' : 'files';
  throw validationFailed('A sealed form cannot keep files: sealing and file uploads exclude each other.', {
    [field]: field === 'sealed' ? 'a form that keeps files cannot be sealed' : 'a sealed form cannot keep files',
  });
}

/** The list with one more recipient; one already listed keeps its place and takes a new label when one is given. */
export function withSealedRecipient(sealed: SealedSetting | null, entry: SealedRecipientInput): SealedSetting {
  const current = sealed?.recipients ?? [];
  const recipient = entry.recipient.trim();
  const label = entry.label ?? null;
  if (!current.some((r) => r.recipient === recipient)) return { recipients: [...current, { recipient, label }] };
  return { recipients: current.map((r) => (r.recipient === recipient && label?.trim() ? { recipient, label } : r)) };
}

/** The list without this recipient; the last one stays (unsealing is its own, explicit step). */
export function withoutSealedRecipient(sealed: SealedSetting | null, recipient: string): SealedSetting {
  const recipients = (sealed?.recipients ?? []).filter((r) => r.recipient !== recipient);
  if (!sealed || recipients.length === sealed.recipients.length) throw notFound('Recipient');
  if (recipients.length === 0) {
    throw validationFailed('A sealed form keeps at least one recipient: unseal it instead.', { sealed: 'a sealed form needs at least one recipient' });
  }
  return { recipients };
}
