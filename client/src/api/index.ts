import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.js';

/** The body of a successful answer of an operation (its 200 or 201 JSON). */
type Ok<Op extends keyof operations> = operations[Op]['responses'] extends infer R
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;

export type ErrorBody = components['schemas']['ErrorBody'];
export type ErrorCode = ErrorBody['error'];
export type Account = Ok<'getMe'>['user'];
export type Form = Ok<'listForms'>['forms'][number];
export type Submission = Ok<'getSubmission'>['submission'];
export type SubmissionPage = Ok<'listFormSubmissions'>;
export type Hook = Ok<'listHooks'>['hooks'][number];
/** A new subscription, with its signing secret (shown only once, in this answer). */
export type CreatedHook = Ok<'createHook'>['hook'];
export type CreateHookInput = NonNullable<operations['createHook']['requestBody']>['content']['application/json'];
/** A list's paging and filters: `spam` ('true' | 'false'), `since` and `until` (ISO 8601; until exclusive). */
export type ListSubmissionsOptions = NonNullable<operations['listFormSubmissions']['parameters']['query']>;

export interface FormgateApiOptions {
  /** The service's public address (its BASE_URL), e.g. https://forms.example.com. */
  baseUrl: string;
  /** An API key (fgk_…), sent as a Bearer token. */
  apiKey: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

/** An answer in Formgate's error envelope (or a failure without one), as an exception. */
export class FormgateApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly fieldErrors: Record<string, string> | undefined;
  /** Seconds to wait before retrying, from Retry-After on 429. */
  readonly retryAfter: number | undefined;

  constructor(response: Response, body: Partial<ErrorBody> | undefined) {
    super(body?.message ?? `Formgate answered ${response.status}`);
    this.name = 'FormgateApiError';
    this.status = response.status;
    this.code = body?.error ?? 'internal_error';
    this.fieldErrors = body?.fieldErrors;
    const retryAfter = response.headers.get('retry-after');
    this.retryAfter = retryAfter === null ? undefined : Number(retryAfter);
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer, else the envelope as a FormgateApiError. */
function unwrap<T>({ data, error, response }: Answer<T>): T {
  if (!response.ok) throw new FormgateApiError(response, error as Partial<ErrorBody> | undefined);
  return data as T;
}

export interface FormgateApi {
  getMe(): Promise<Account>;
  listForms(): Promise<Form[]>;
  /**
   * One page of a form's submissions, newest first, optionally filtered; pass the page's
   * nextCursor for the next (it keeps the filters it was made with).
   */
  listFormSubmissions(formId: string, options?: ListSubmissionsOptions): Promise<SubmissionPage>;
  /** Every submission of a form matching the filters, newest first, fetched a page of `limit` at a time. */
  submissions(formId: string, options?: Omit<ListSubmissionsOptions, 'cursor'>): AsyncIterable<Submission>;
  getSubmission(submissionId: string): Promise<Submission>;
  listHooks(): Promise<Hook[]>;
  createHook(input: CreateHookInput): Promise<CreatedHook>;
  deleteHook(hookId: string): Promise<void>;
  /** After an outage: sends again every delivery of the hook in [since, until) whose last attempt failed (at most 10,000 a call); resolves to how many were queued. */
  redeliverHook(hookId: string, range: { since: string; until?: string }): Promise<number>;
  /** An uploaded file of the key's account (docs/files.md, Downloads): its bytes, cleaned name and content type. */
  getFile(fileId: string): Promise<{ name: string; type: string; content: Blob }>;
  /** The underlying openapi-fetch client, typed by the whole document. */
  readonly client: Client<paths>;
}

/** A typed client of Formgate's management API (/v1/api), generated from /v1/openapi.json. */
export function createFormgateApi({ baseUrl, apiKey, fetch }: FormgateApiOptions): FormgateApi {
  const client = createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${apiKey}` },
    ...(fetch ? { fetch } : {}),
  });

  const listFormSubmissions: FormgateApi['listFormSubmissions'] = async (formId, options = {}) =>
    unwrap(await client.GET('/v1/api/forms/{id}/submissions', { params: { path: { id: formId }, query: options } }));

  return {
    client,
    getMe: async () => unwrap(await client.GET('/v1/api/me')).user,
    listForms: async () => unwrap(await client.GET('/v1/api/forms')).forms,
    listFormSubmissions,
    async *submissions(formId, filters = {}) {
      let cursor: string | undefined;
      do {
        const page = await listFormSubmissions(formId, { ...filters, ...(cursor ? { cursor } : {}) });
        yield* page.submissions;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    },
    getSubmission: async (submissionId) =>
      unwrap(await client.GET('/v1/api/submissions/{id}', { params: { path: { id: submissionId } } })).submission,
    listHooks: async () => unwrap(await client.GET('/v1/api/hooks')).hooks,
    createHook: async (input) => unwrap(await client.POST('/v1/api/hooks', { body: input })).hook,
    deleteHook: async (hookId) => {
      unwrap(await client.DELETE('/v1/api/hooks/{id}', { params: { path: { id: hookId } } }));
    },
    getFile: async (fileId) => {
      const answer = await client.GET('/v1/api/files/{id}', { params: { path: { id: fileId } }, parseAs: 'blob' });
      const content = unwrap(answer) as Blob;
      const disposition = answer.response.headers.get('content-disposition') ?? '';
      const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
      return { name: encoded ? decodeURIComponent(encoded) : fileId, type: answer.response.headers.get('x-file-type') ?? 'application/octet-stream', content };
    },
    redeliverHook: async (hookId, range) =>
      unwrap(await client.POST('/v1/api/hooks/{id}/redeliver', { params: { path: { id: hookId } }, body: range })).queued,
  };
}
