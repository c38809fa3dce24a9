/** Every stored and returned timestamp: ISO 8601 UTC with milliseconds. Sorts as text. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoMinus(iso: string, ms: number): string {
  return new Date(Date.parse(iso) - ms).toISOString();
}
