import { METHODS } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type FieldErrors } from '../errors.js';
import { canBeKey, isStorableText, shortened } from '../lib/text.js';
import { sendAppError } from './error-handler.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The body is a submission's payload, stored as JSON text (where any string survives) and
     * checked by the submit parsers themselves; the query string is not read at all.
     */
    bodyIsPayload?: boolean;
  }
}

/**
 * Every request method Node's parser accepts, so routes can answer any of them (a submit URL
 * answers 405 to PROPFIND as to PUT). CONNECT never reaches a route: Node hands it to the
 * server's 'connect' event.
 */
export function acceptEveryHttpMethod(app: FastifyInstance): void {
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
}

/**
 * Identifiers and text enter through path parameters, the query string and the body. A value no
 * row can have is answered here, once for every route, instead of reaching a query: a path
 * parameter names something that cannot exist (not_found), a query or body value cannot be
 * stored or matched (validation_failed naming the field). PostgreSQL would otherwise fail the
 * whole query on a NUL byte (a 500), where SQLite finds nothing.
 */
export function rejectUnstorableInput(app: FastifyInstance): void {
  // Callback style: no promise per request on the submit path.
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const params = (request.params ?? {}) as Record<string, unknown>;
    for (const name in params) {
      const value = params[name];
      if (typeof value === 'string' && !canBeKey(value)) return done(new AppError('not_found', 'No such resource.'));
    }
    // A submit URL never reads its query (an HTML form's action may carry anything there), and
    // its body is checked by the submit parsers.
    if (request.routeOptions.config.bodyIsPayload) return done();
    const fieldErrors = unstorableFields(request.query) ?? unstorableFields(request.body);
    if (fieldErrors) {
      return done(new AppError('validation_failed', 'A value contains characters that cannot be stored.', { fieldErrors }));
    }
    done();
  });
}

/** Top-level string values (and arrays of them) that are not storable text, by field name. */
function unstorableFields(input: unknown): FieldErrors | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  for (const [name, value] of Object.entries(input)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && !isStorableText(v))) {
      const fieldErrors = Object.create(null) as FieldErrors;
      Object.defineProperty(fieldErrors, shortened(name), {
        value: 'must not contain NUL characters or invalid Unicode',
        enumerable: true,
      });
      return fieldErrors;
    }
  }
  return undefined;
}

/**
 * Errors Fastify raises before any route runs get the envelope too: a URL whose
 * percent-escapes do not decode (validation_failed), a path parameter longer than any ID
 * (not_found, like any other identifier no row can have).
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const appError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('not_found', 'No such resource.')
      : error.code === 'FST_ERR_BAD_URL'
        ? new AppError('validation_failed', 'The URL is malformed: a percent-escape does not decode to UTF-8.')
        : new AppError('internal_error', 'Something went wrong on our side.');
  void sendAppError(reply, appError);
}
