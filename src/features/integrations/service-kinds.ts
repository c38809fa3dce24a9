import { CHAT_KINDS } from './integration.types.js';
import type { ServiceKind } from './service-kind.js';
import { airtableKind } from './airtable/airtable.kind.js';
import { notionKind } from './notion/notion.kind.js';
import { listmonkKind } from './listmonk/listmonk.kind.js';
import { mailchimpKind } from './mailchimp/mailchimp.kind.js';
import { sheetsKind } from './sheets/sheets.kind.js';

/** Every kind of integration with a service that keeps the data: a folder each, and a line here. */
export const SERVICE_KINDS: readonly ServiceKind[] = [sheetsKind, airtableKind, notionKind, mailchimpKind, listmonkKind];

/** Every kind an integration may be of: the chat and push kinds, then the services. */
export const INTEGRATION_KINDS: readonly string[] = [...CHAT_KINDS, ...SERVICE_KINDS.map((k) => k.kind)];

export function findServiceKind(kind: string): ServiceKind | undefined {
  return SERVICE_KINDS.find((k) => k.kind === kind);
}

/** The kinds that send one message at a time per integration, in order (as SQL string literals' values). */
export const SEQUENTIAL_KINDS: readonly string[] = SERVICE_KINDS.filter((k) => k.sequential).map((k) => k.kind);
