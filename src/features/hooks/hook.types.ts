/** The API's Hook resource (a REST-hook subscription, docs/api.md). */
export interface Hook {
  id: string;
  formId: string;
  targetUrl: string;
  createdAt: string;
}

export type DeliveryState = 'pending' | 'sending' | 'sent' | 'failed';

/** One recorded delivery of a submission to a hook (or a "Send test": no submission), for the dashboard. */
export interface DeliveryAttempt {
  id: string;
  /** null for a test delivery. */
  submissionId: string | null;
  /** Attempts made (a test: 1). */
  attempts: number;
  state: DeliveryState;
  createdAt: string;
  attemptedAt: string | null;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
}
