import type { FormRow, FormRowUpdate } from '../../platform/db/schema.js';

/** A stored value and a new one are the same setting value (PostgreSQL reads a bigint back as text). */
function sameValue(stored: unknown, next: unknown): boolean {
  if ((stored ?? null) === (next ?? null)) return true;
  return stored !== null && stored !== undefined && next !== null && next !== undefined && String(stored) === String(next);
}

const isGroup = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The names of the given settings whose value differs from the stored form, sorted; a setting
 * made of parts (the confirmation email) is named by its changed parts, `autoReply.subject`.
 * `toRow` writes settings as columns, the way the update will. Names only: some settings are
 * secrets.
 */
export function changedSettingNames<S extends object>(settings: S, before: FormRow, toRow: (settings: S) => FormRowUpdate): string[] {
  const changes = (partial: object) =>
    Object.entries(toRow(partial as S)).some(([column, value]) => !sameValue(before[column as keyof FormRow], value));
  const names: string[] = [];
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    if (isGroup(value)) {
      for (const [part, partValue] of Object.entries(value)) {
        if (partValue !== undefined && changes({ [name]: { [part]: partValue } })) names.push(`${name}.${part}`);
      }
    } else if (changes({ [name]: value })) {
      names.push(name);
    }
  }
  return names.sort();
}
