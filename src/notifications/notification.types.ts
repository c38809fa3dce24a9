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
  createdAt: string;
  submissionId: string | null;
  attempts: Array<{ attemptedAt: string; outcome: string; reply: string }>;
}
