import type { SelectQueryBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Database, OutboxAttemptRow } from '../../platform/db/schema.js';
import { newId } from '../../platform/lib/ids.js';
import { listAttemptRowsOfItems, listNewestAttemptRows } from './outbox-log.repository.js';
import { insertAttemptRow, type AttemptWrite } from './outbox.repository.js';

/**
 * One outbound message as the owner sees it: every channel describes its
 * items in this shape, and the submission's page lists them together.
 */
export interface MessageLogEntry {
  /** Which service sends it again. */
  channel: 'hook' | 'email' | 'integration';
  id: string;
  /** What it is, in words: "Hook delivery", "Notification email", "Confirmation email", "Slack message". */
  kind: string;
  /** Where it goes: a hook's URL, an address, an integration's name. */
  target: string;
  state: MessageState;
  /** Why it was skipped or failed, when known. */
  reason: string | null;
  attempts: number;
  /** The last answer: an HTTP status, an SMTP reply. */
  lastStatus: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  /** The attempts before the last, oldest first, where the channel's own log does not list them elsewhere. */
  earlierAttempts?: Array<{ at: string; answer: string }>;
  /** The owner may send it again (never the visitor's confirmation, nor one queued or in flight). */
  canSendAgain: boolean;
}

export type MessageState = 'queued' | 'sending' | 'sent' | 'failed' | 'skipped';

/** A channel's stored state in the log's words. */
export function messageStateOf(stored: string): MessageState {
  if (stored === 'pending') return 'queued';
  if (stored === 'sending' || stored === 'sent' || stored === 'skipped') return stored;
  return 'failed';
}

/** Whether a message in `stored` state is done, so it can be sent again. */
export const isDone = (stored: string): boolean => stored !== 'pending' && stored !== 'sending';

/** One row of the attempt log, as the channels' readers show it: what was written of it. */
export type LoggedAttempt = Pick<AttemptWrite, 'id' | 'itemId' | 'attempt' | 'attemptedAt' | 'outcome' | 'status' | 'durationMs' | 'error'>;

const loggedAttemptOf = (row: OutboxAttemptRow): LoggedAttempt => ({
  id: row.id,
  itemId: row.item_id,
  attempt: Number(row.attempt),
  attemptedAt: row.attempted_at,
  outcome: row.outcome,
  status: row.status === null ? null : Number(row.status),
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  error: row.error,
});

/** Every attempt of each of the items, oldest first (items with none are absent). */
export async function listAttemptsOf(db: Executor, itemIds: string[]): Promise<Map<string, LoggedAttempt[]>> {
  const byItem = new Map<string, LoggedAttempt[]>();
  for (const row of await listAttemptRowsOfItems(db, [...new Set(itemIds)])) {
    const list = byItem.get(row.item_id) ?? [];
    list.push(loggedAttemptOf(row));
    byItem.set(row.item_id, list);
  }
  return byItem;
}

/** The newest `limit` attempts of the items a channel's query selects, newest first. */
export async function listNewestAttempts(db: Executor, items: SelectQueryBuilder<Database, any, { id: string }>, limit: number): Promise<LoggedAttempt[]> {
  return (await listNewestAttemptRows(db, items, limit)).map(loggedAttemptOf);
}

/**
 * Logs an attempt at something the outbox does not send (an integration's test message): it
 * shows in the log of whatever `itemId` names, and goes with it.
 */
export async function logAttempt(db: Executor, attempt: Omit<LoggedAttempt, 'id' | 'attempt'> & { channel: string }): Promise<void> {
  await insertAttemptRow(db, { ...attempt, id: newId('att'), attempt: 1 });
}
