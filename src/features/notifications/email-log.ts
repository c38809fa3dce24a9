import type { EmailMessageRow } from '../../platform/db/schema.js';
import type { LoggedAttempt } from '../outbox/outbox.types.js';
import type { EmailLogEntry } from './notification.types.js';

// The form's email log, read from the outbox's one attempt log: each message with its attempts
// (a skip is the message's result, not an attempt at sending it), and each test send.

export function emailLogEntryOf(message: EmailMessageRow, attempts: LoggedAttempt[]): EmailLogEntry {
  const skip = message.state === 'skipped' ? attempts.filter((a) => a.outcome === 'skipped').at(-1) : undefined;
  return {
    id: message.id,
    kind: message.kind,
    to: message.to_address,
    state: message.state,
    skipReason: skip?.error ?? null,
    createdAt: message.created_at,
    submissionId: message.submission_id,
    attempts: attempts.filter((a) => a.outcome !== 'skipped').map((a) => ({ attemptedAt: a.attemptedAt, outcome: a.outcome, reply: a.error ?? '' })),
  };
}

/** A "Send test" to one recipient, logged under the recipient: a message of kind `test` tried once. */
export function testSendLogEntryOf(test: LoggedAttempt, address: string): EmailLogEntry {
  return {
    id: test.id,
    kind: 'test',
    to: address,
    state: test.outcome === 'sent' ? 'sent' : 'failed',
    skipReason: null,
    createdAt: test.attemptedAt,
    submissionId: null,
    attempts: [{ attemptedAt: test.attemptedAt, outcome: test.outcome, reply: test.error ?? '' }],
  };
}
