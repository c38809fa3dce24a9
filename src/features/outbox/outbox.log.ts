import type { OutboxAttemptRow } from '../../platform/db/schema.js';
import type { LoggedAttempt, LoggedItem, MessageLogEntry, MessageState } from './outbox.types.js';

// How the one attempt log reads: its rows as LoggedAttempts, and every channel's items with their
// attempts as the owner's message log.

export const loggedAttemptOf = (row: OutboxAttemptRow): LoggedAttempt => ({
  id: row.id,
  itemId: row.item_id,
  attempt: Number(row.attempt),
  attemptedAt: row.attempted_at,
  outcome: row.outcome,
  status: row.status === null ? null : Number(row.status),
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  error: row.error,
});

/** Rows of the log (in order) grouped by item; items with none are absent. */
export function groupByItem(rows: OutboxAttemptRow[]): Map<string, LoggedAttempt[]> {
  const byItem = new Map<string, LoggedAttempt[]>();
  for (const row of rows) {
    const list = byItem.get(row.item_id) ?? [];
    list.push(loggedAttemptOf(row));
    byItem.set(row.item_id, list);
  }
  return byItem;
}

/**
 * A stored state in the log's words. A pending item whose last attempt asked for another is
 * retrying, not queued: it failed once already, and the owner should see so.
 */
function messageStateOf(stored: string, last: LoggedAttempt | undefined): MessageState {
  if (stored === 'pending') return last?.outcome === 'retry' ? 'retrying' : 'queued';
  if (stored === 'sending' || stored === 'sent' || stored === 'skipped') return stored;
  return 'failed';
}

/** Whether an item in `stored` state is done, so it can be sent again. */
const isDone = (stored: string): boolean => stored !== 'pending' && stored !== 'sending';

/** The outcomes every channel has; any other is a channel's own label (bounced, disabled), which says why by itself. */
const COMMON_OUTCOMES = new Set(['sent', 'retry', 'failed', 'skipped']);

/** An attempt's answer in words: the receiver's HTTP status, else the error or the server's reply. */
const answerOf = (a: LoggedAttempt): string | null => (a.status === null ? a.error : `HTTP ${a.status}`);

/**
 * Why a message did not go: a skip's reason; for a failure, the error beside an HTTP status, or
 * the channel's label (a bounce) when the answer column already shows the reply.
 */
function reasonOf(state: MessageState, last: LoggedAttempt | undefined): string | null {
  if (!last || (state !== 'skipped' && state !== 'failed' && state !== 'retrying')) return null;
  if (last.outcome === 'skipped' || last.status !== null) return last.error;
  return COMMON_OUTCOMES.has(last.outcome) ? null : last.outcome;
}

/** One message of the log: the channel's description of its item, and what its attempts say. */
export function messageLogEntryOf(item: LoggedItem, attempts: LoggedAttempt[]): MessageLogEntry {
  const last = attempts.at(-1);
  const state = messageStateOf(item.state, last);
  const answered = last && last.outcome !== 'skipped' ? last : undefined;
  return {
    channel: item.channel,
    id: item.id,
    kind: item.kind,
    target: item.target,
    state,
    reason: reasonOf(state, last),
    attempts: item.attempts,
    lastStatus: answered ? answerOf(answered) : null,
    createdAt: item.createdAt,
    lastAttemptAt: last?.attemptedAt ?? null,
    nextAttemptAt: state === 'retrying' ? (item.nextAttemptAt ?? null) : null,
    earlierAttempts: attempts.slice(0, -1).map((a) => ({ at: a.attemptedAt, answer: answerOf(a) ?? 'no answer' })),
    canSendAgain: item.resendable && isDone(item.state),
  };
}
