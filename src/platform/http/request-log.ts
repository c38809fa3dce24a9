import type { FastifyBaseLogger, FastifyRequest, FastifyServerOptions } from 'fastify';

export const REDACTED = '[redacted]';

/** Secrets that must never reach a log line, wherever they sit in what is logged. */
export const logRedactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'apiKey',
  'accessKey',
  'secret',
  'password',
];

/**
 * Addresses that carry a secret, by their path's shape. `:secret` is a segment that is itself
 * the secret (a single-use link's token: invitation, password reset, email change, a notification
 * recipient's confirmation, unsubscribe); any other `:name` matches any segment and stays. The
 * query string of every address listed is a secret as a whole: a signed file link's expiry and
 * signature, the code and state single sign-on returns with. Deeper paths match too (`/accept`).
 */
export const SECRET_URL_PATTERNS: readonly string[] = [
  '/dashboard/invite/:secret',
  '/dashboard/reset-password/:secret',
  '/dashboard/confirm-email/:secret',
  '/dashboard/verify-email/:secret',
  '/v1/unsubscribe/:secret',
  '/v1/files/:id',
  '/dashboard/auth/oidc/callback',
];

const patterns = SECRET_URL_PATTERNS.map((pattern) => pattern.split('/').filter(Boolean).map((segment) => (segment.startsWith(':') ? segment : segment.toLowerCase())));

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The path's segments as a router could read them: percent-escapes decoded, empty segments
 * (doubled or trailing slashes) and dot segments resolved. A secret is found however the path
 * is spelled, since a request that reaches no route is logged as well.
 */
function segmentsOf(path: string): string[] {
  const segments: string[] = [];
  for (const segment of path.split('/').flatMap((raw) => (raw.includes('%') ? decoded(raw).split('/') : [raw]))) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments;
}

const matches = (pattern: string[], segments: string[]) =>
  pattern.length <= segments.length && pattern.every((part, i) => part.startsWith(':') || part === segments[i]!.toLowerCase());

/** A request line may name the target in absolute form (`GET http://host/path`). */
const SCHEME_AND_HOST = /^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i;

/**
 * A request's URL as the log may show it. An address with a secret is shown decoded, with the
 * secret segment and its query string as `[redacted]`; any other URL is shown as sent.
 */
export function redactedUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const segments = segmentsOf(path.startsWith('/') ? path : path.replace(SCHEME_AND_HOST, ''));
  const pattern = patterns.find((p) => matches(p, segments));
  if (!pattern) return url;
  const shown = segments.map((segment, i) => (pattern[i] === ':secret' ? REDACTED : segment));
  return `/${shown.join('/')}${queryAt === -1 ? '' : `?${REDACTED}`}`;
}

/** Fastify's request serializer, the same fields, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactedUrl(request.url ?? ''),
    version: request.headers?.['accept-version'] as string | undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

type LoggerChoice = Pick<FastifyServerOptions, 'logger' | 'loggerInstance'>;

/**
 * The app's logger with the request serializer above, however it was given: pino options (the
 * server's JSON lines) or a logger instance (pretty printing on a terminal, a test's capture).
 */
export function withRedactedRequests(choice: { logger?: FastifyServerOptions['logger']; loggerInstance?: FastifyBaseLogger }): LoggerChoice {
  if (choice.loggerInstance) return { loggerInstance: choice.loggerInstance.child({}, { serializers: { req: serializeRequest } }) };
  const { logger } = choice;
  if (!logger) return { logger: false };
  const options = logger === true ? {} : logger;
  return { logger: { ...options, serializers: { ...options.serializers, req: serializeRequest } } };
}
