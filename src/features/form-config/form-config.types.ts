import { createHash } from 'node:crypto';
import type { FormSettingsView, NotifyMode } from '../forms/form.types.js';

/** A write's answer as the idempotency record keeps it, to replay it as it was. */
export interface StoredAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * A form as the write API shows it (docs/api.md, Writes): the read API's Form, plus its
 * configuration key, every setting (secrets only as `set`) and its notification recipients.
 */
export interface ManagedForm {
  id: string;
  key: string | null;
  name: string;
  isActive: 0 | 1;
  createdAt: string;
  updatedAt: string;
  settings: FormSettingsView & { notifyMode: NotifyMode };
  recipients: string[];
}

/** A resource and the ETag that changes whenever it does. */
export interface Tagged<T> {
  resource: T;
  etag: string;
}

/**
 * A strong ETag over what the resource shows and its revision, the latter for what it does not
 * show (a new secret shows as `set` again).
 */
export function etagOf(resource: unknown, revision: number): string {
  return `"${createHash('sha256').update(JSON.stringify(resource)).update(`\n${revision}`).digest('base64url').slice(0, 32)}"`;
}

/** An If-Match header holds for the ETag: absent, `*`, or a list naming it (weak tags never match). */
export function ifMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return true;
  const tags = header.split(',').map((t) => t.trim());
  return tags.includes('*') || tags.includes(etag);
}
