/**
 * The closed set of error codes, each with its one HTTP status (docs/api.md).
 * Every error leaving the service goes through this table.
 */
export const errorStatus = {
  validation_failed: 400,
  unauthorized: 401,
  access_denied: 403,
  form_inactive: 403,
  plan_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  origin_not_allowed: 403,
  request_timeout: 408,
  rate_limited: 429,
  internal_error: 500,
  file_not_scanned: 409,
  precondition_failed: 412,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export type FieldErrors = Record<string, string>;

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  fieldErrors?: FieldErrors;
  /** Only on 500 answers. */
  requestId?: string;
}

/**
 * Catalogue keys (src/platform/i18n) of an error's texts, for answers in the visitor's language: the
 * message's, and one per field (`*` for every field without its own).
 */
export interface ErrorTextKeys {
  message?: string;
  fields?: Record<string, string>;
  /** Values the texts name (`{name}` in a catalogue text), such as a file's name and a limit. */
  params?: Record<string, string>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fieldErrors: FieldErrors | undefined;
  readonly headers: Record<string, string>;
  readonly textKeys: ErrorTextKeys | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { fieldErrors?: FieldErrors; headers?: Record<string, string>; textKeys?: ErrorTextKeys } = {},
  ) {
    // A client's mistake needs no stack (its code and message say everything), and capturing one
    // was the largest single cost of refusing a submission: only 5xx errors keep theirs.
    if (errorStatus[code] < 500) {
      const depth = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      super(message);
      Error.stackTraceLimit = depth;
    } else {
      super(message);
    }
    this.name = 'AppError';
    this.code = code;
    this.fieldErrors = options.fieldErrors;
    this.headers = options.headers ?? {};
    this.textKeys = options.textKeys;
  }

  get statusCode(): number {
    return errorStatus[this.code];
  }

  toBody(): ErrorBody {
    return this.fieldErrors
      ? { error: this.code, message: this.message, fieldErrors: this.fieldErrors }
      : { error: this.code, message: this.message };
  }
}

export const notFound = (what = 'Resource'): AppError => new AppError('not_found', `${what} not found.`);

export const preconditionFailed = (what = 'Resource'): AppError =>
  new AppError('precondition_failed', `${what} changed since the ETag sent in If-Match was read: read it again, then retry.`);

export const validationFailed = (message: string, fieldErrors?: FieldErrors): AppError =>
  new AppError('validation_failed', message, fieldErrors ? { fieldErrors } : {});

/**
 * For a `catch` that handles only bad input (to show it next to the form): any other error is
 * thrown on unchanged, and after the call `err` is known to be the validation error.
 */
export function rethrowUnlessValidation(err: unknown): asserts err is AppError & { code: 'validation_failed' } {
  if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
}

/** The envelope's JSON schema, shared by every route's response schemas and the OpenAPI document. */
export const errorBodySchema = {
  $id: 'ErrorBody',
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', enum: Object.keys(errorStatus) },
    message: { type: 'string' },
    fieldErrors: { type: 'object', additionalProperties: { type: 'string' } },
    requestId: { type: 'string', description: 'On 500 answers: the X-Request-Id to quote when reporting the problem' },
  },
} as const;
