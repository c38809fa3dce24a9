export const MAX_RECIPIENTS = 5;

export type RecipientState = 'pending' | 'verified' | 'bounced';

export interface Recipient {
  id: string;
  address: string;
  state: RecipientState;
  verifiedAt: string | null;
  bouncedAt: string | null;
}

export interface EmailLogEntry {
  id: string;
  kind: string;
  to: string;
  state: string;
  /** Why it was not sent: recipient_not_verified, or a confirmation's rate_limited | daily_cap | suppressed | too_late. */
  skipReason: string | null;
  createdAt: string;
  submissionId: string | null;
  attempts: Array<{ attemptedAt: string; outcome: string; reply: string }>;
}

/** A test message to one recipient, as the SMTP server answered it. */
export interface TestEmailResult {
  address: string;
  sent: boolean;
  /** The server's reply, or why nothing was sent. */
  reply: string;
}
