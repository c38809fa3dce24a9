/** The specification's Hook resource (a REST-hook subscription). */
export interface Hook {
  id: string;
  formId: string;
  targetUrl: string;
  createdAt: string;
}

export type DeliveryState = 'pending' | 'sending' | 'sent' | 'failed';

/** One recorded delivery of a submission to a hook, for the dashboard. */
export interface DeliveryAttempt {
  id: string;
  submissionId: string;
  state: DeliveryState;
  createdAt: string;
  attemptedAt: string | null;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
}
