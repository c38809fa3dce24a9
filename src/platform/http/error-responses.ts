/**
 * The error answers of errors.ts as route response schemas. Each route lists the
 * statuses it can answer; the same declaration serializes the envelope and documents it in
 * /v1/openapi.json (with the headers that come with a status).
 */
export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 412 | 413 | 429 | 500 | 503;

const meanings: Record<ErrorStatus, string> = {
  400: 'validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor',
  401: 'unauthorized: the API key is missing, malformed, unknown or revoked',
  403: 'Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks)',
  404: 'not_found: no such resource for this account',
  408: 'request_timeout: the request was not fully received in time',
  409: 'file_not_scanned (file downloads: the file is not yet scanned clean for malware; retry after Retry-After seconds)',
  412: 'precondition_failed: the resource changed since the ETag sent in If-Match was read; read it again',
  413: 'payload_too_large: the body is over the size limit',
  429: 'rate_limited: too many requests; retry after Retry-After seconds',
  500: 'internal_error: something unexpected; requestId names the log lines',
  503: 'internal_error: the server is shutting down; retry',
};

const retryAfter = { type: 'integer', minimum: 0, description: 'Seconds until the limit resets' } as const;
const rateLimitHeaders = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests allowed in the window' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the window' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets' },
} as const;

const headers: Partial<Record<ErrorStatus, Record<string, object>>> = {
  401: { 'WWW-Authenticate': { type: 'string', const: 'Bearer', description: 'The scheme to authenticate with' } },
  409: { 'Retry-After': { type: 'integer', minimum: 0, description: 'Seconds until the file is scanned again' } },
  429: { 'Retry-After': retryAfter, ...rateLimitHeaders },
};

const envelope = { $ref: 'ErrorBody#' } as const;
/** The hosted error page a browser gets from the submit endpoint outside JSON mode. */
const errorPage = { type: 'string', description: 'A hosted HTML error page (redirect mode without an error URL)' } as const;

export interface ErrorResponseOptions {
  /** Also a text/html page (the submit endpoint answers browsers with one). */
  html?: boolean;
}

export function errorResponses(statuses: readonly ErrorStatus[], options: ErrorResponseOptions = {}) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: meanings[status],
        ...(headers[status] ? { headers: headers[status] } : {}),
        content: {
          'application/json': { schema: envelope },
          ...(options.html ? { 'text/html': { schema: errorPage } } : {}),
        },
      },
    ]),
  );
}

/** What any route can answer: a malformed URL, a slow client, a fault, a server going down. */
export const ALWAYS: readonly ErrorStatus[] = [400, 408, 500, 503];

/** Every management API route: the above plus the key check and its rate limit. */
export const MANAGEMENT: readonly ErrorStatus[] = [...ALWAYS, 401, 429];
