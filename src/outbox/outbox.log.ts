/**
 * One outbound message as the owner sees it (contract section 21): every channel describes its
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
