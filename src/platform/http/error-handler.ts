import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type FieldErrors } from '../errors.js';

/**
 * Turns anything thrown into an AppError, so one table (errors.ts) decides every status.
 * 5xx messages are replaced: internals never leak.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as Partial<FastifyError> & { validation?: Array<{ instancePath?: string; params?: Record<string, unknown>; message?: string }> };
  if (e.validation) {
    const fieldErrors: FieldErrors = {};
    for (const v of e.validation) {
      const missing = v.params?.missingProperty;
      const extra = v.params?.additionalProperty;
      const path = String(missing ?? extra ?? v.instancePath?.replace(/^\//, '').split('/')[0] ?? '') || 'body';
      fieldErrors[path] ??= extra ? 'is not allowed' : (v.message ?? 'is invalid');
    }
    return new AppError('validation_failed', 'The request is not valid.', { fieldErrors });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_MISSING_CONTENT_TYPE':
      return new AppError('validation_failed', 'Unsupported or missing Content-Type.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PROTO_VIOLATION':
      return new AppError('validation_failed', 'The request body could not be parsed.');
  }
  if (e.statusCode === 429) {
    return new AppError('rate_limited', 'Too many requests; try again later.');
  }
  if (e.statusCode === 413) return new AppError('payload_too_large', 'The request body is too large.');
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    // A client error Fastify or a plugin raised (bad JSON, bad encoding, aborted body): say so
    // without echoing internals.
    return new AppError('validation_failed', 'The request could not be processed.');
  }
  return new AppError('internal_error', 'Something went wrong on our side.');
}

export function sendAppError(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  // A 500 hides what went wrong; the request ID lets an operator find it in the logs.
  const body = error.statusCode >= 500 ? { ...error.toBody(), requestId: reply.request.id } : error.toBody();
  // Sent as text: the route's response schema would serialize the same bytes, at more cost.
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

export function jsonErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  if (appError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  return sendAppError(reply, appError);
}
