/** A stored field value: JSON bodies keep their types; urlencoded and multipart give strings. */
export type FieldScalar = string | number | boolean | null;
export type FieldValue = FieldScalar | FieldScalar[];
/**
 * Field name → value. Built with Object.create(null) / defineProperty so names such as
 * `__proto__` are plain data and never touch a prototype.
 */
export type SubmissionPayload = Record<string, FieldValue>;

export type SubmissionStatus = 'delivered';

export interface Submission {
  id: string;
  formId: string;
  createdAt: string;
  status: SubmissionStatus;
  isSpam: boolean;
  payload: SubmissionPayload;
  ip: string;
  country: string;
  userAgent: string;
  referer: string;
}

/** The specification's Submission resource (management view). */
export interface ApiSubmission {
  id: string;
  createdAt: string;
  status: SubmissionStatus;
  isSpam: 0 | 1;
  country: string;
  payload: SubmissionPayload;
}

export function submissionToApiSubmission(s: Submission): ApiSubmission {
  return {
    id: s.id,
    createdAt: s.createdAt,
    status: s.status,
    isSpam: s.isSpam ? 1 : 0,
    country: s.country,
    payload: s.payload,
  };
}

/** JSON.parse defines `__proto__` as an own data property, so stored payloads round-trip safely. */
export function parsePayload(json: string): SubmissionPayload {
  return JSON.parse(json) as SubmissionPayload;
}
