import { setImmediate as answerInCheckPhase } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../platform/errors.js';
import type { Form } from '../forms/form.types.js';
import { sendAppError, toAppError } from '../../platform/http/error-handler.js';
import { ALWAYS, errorResponses } from '../../platform/http/error-responses.js';
import { clientKey, rateLimited, setRateLimitHeaders } from '../../platform/http/rate-limits.js';
import { chooseLanguage } from '../../platform/i18n/i18n.js';
import { HOSTED_PAGE_CSP, errorPage, thanksPage } from './views/hosted-pages.js';
import { localizedError } from './localized-errors.js';
import { backUrl, thanksTexts } from './hosted-page-context.js';
import { errorDestination } from './redirects.js';
import { respondsWithJson } from './response-mode.js';
import type { UploadBatch } from '../files/file.types.js';
import { checkIdempotencyKey } from './submit.service.js';
import { parseMultipartFields } from './submit-multipart.js';
import { decodeUtf8, parseJsonFields, parseUrlencodedFields, type PostedFields } from './submit-fields.js';
import { submitBodySchema, submitHeadersSchema } from './submit.schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The form the submit URL names once it was looked up, null when no form has that ID;
     * undefined before the lookup. The handler and the error handler reuse it.
     */
    submitForm: Form | null | undefined;
    /** Set when the submission was stored; any other answer counts as rejected. */
    submitOutcome: 'accepted' | 'spam' | undefined;
    /** The files of a multipart body on a form that keeps files; removed unless the submission was stored. */
    submitUploads: UploadBatch | undefined;
  }
}

const SUBMIT_URL = '/v1/submit/:formId';
/** Room for each file part's headers and boundary in a declared Content-Length. */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;
const tooLarge = () => new AppError('payload_too_large', 'The request body is too large.');
const ALLOW = 'POST, OPTIONS';

const paramsSchema = {
  type: 'object',
  required: ['formId'],
  properties: { formId: { type: 'string', description: 'The form ID' } },
} as const;

const successSchema = {
  type: 'object',
  required: ['ok', 'submissionId'],
  properties: {
    ok: { type: 'boolean', const: true },
    submissionId: { type: 'string' },
    filtered: { type: 'string', enum: ['spam'], description: 'Present when the submission was filtered as spam' },
    cached: { type: 'boolean', const: true, description: 'Present on an Idempotency-Key replay' },
  },
} as const;

/** JSON in JSON mode, a hosted page otherwise (redirect mode answers 303 to the error URL). */
const submitErrors = errorResponses([...ALWAYS, 403, 404, 413, 429], { html: true });
const preflightErrors = errorResponses([...ALWAYS, 404, 413], { html: true });

const redirect = {
  type: 'null',
  description: 'Redirect mode: to the success URL, the redirect field or /thanks; on an error, to the error URL with ?error=<code>',
  headers: { Location: { type: 'string', format: 'uri-reference', description: 'Where the browser goes next' } },
} as const;

/**
 * The content-type parsers are the submit body's validation (they answer `validation_failed`'s
 * field errors); body and headers are declared for the OpenAPI document only. Schema validation would
 * also coerce types (a JSON number stored as a string), so this route's validators accept
 * everything: the only parameter, formId, is a path segment and always a string.
 */
const documentedOnly = () => () => true;

/** The public submit endpoint (any origin, no credential) and the hosted thank-you page. */
export async function submitRoutes(app: FastifyInstance): Promise<void> {
  const ownOrigin = new URL(app.config.baseUrl).origin;
  app.get(
    '/thanks',
    {
      schema: {
        hide: true,
        querystring: {
          type: 'object',
          properties: {
            error: { type: 'string', maxLength: 64 },
            form: { type: 'string', maxLength: 100 },
            submission: { type: 'string', maxLength: 100 },
          },
        },
      },
    },
    async (request: FastifyRequest<{ Querystring: { error?: string; form?: string; submission?: string } }>, reply) => {
      const form = request.query.form ? await app.services.forms.findFormCached(request.query.form) : undefined;
      const language = chooseLanguage(form?.language, request.headers['accept-language']);
      const back = backUrl(request.headers.referer, ownOrigin, form);
      const body = request.query.error
        ? errorPage(language, request.query.error, back)
        : thanksPage(language, form ? { ...(await thanksTexts(app, form, request.query.submission)), backUrl: back } : { backUrl: back });
      return reply
        .header('content-security-policy', HOSTED_PAGE_CSP)
        .header('content-language', language)
        .type('text/html; charset=utf-8')
        .send(body);
    },
  );

  await app.register(async (submit) => {
    const { config } = app;
    submit.decorateRequest('submitForm', undefined);
    submit.decorateRequest('submitOutcome', undefined);
    submit.decorateRequest('submitUploads', undefined);
    const { metrics } = app.services;
    // Counted when the answer is sent: two increments, nothing awaited.
    submit.addHook('onResponse', (request, reply, done) => {
      if (request.method === 'POST') {
        metrics.submissions.inc({ outcome: request.submitOutcome ?? 'rejected' });
        metrics.submitDuration.observe(reply.elapsedTime / 1000);
      }
      done();
    });

    // Only the three documented body types; anything else is validation_failed.
    submit.removeAllContentTypeParsers();
    submit.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
      try {
        done(null, parseJsonFields(decodeUtf8(body)));
      } catch (err) {
        done(err as Error, undefined);
      }
    });
    submit.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'buffer' },
      (_request, body: Buffer, done) => {
        try {
          done(null, parseUrlencodedFields(decodeUtf8(body)));
        } catch (err) {
          done(err as Error, undefined);
        }
      },
    );
    submit.addContentTypeParser('multipart/form-data', (request, payload, done) => {
      // With files off nothing new runs: file parts are read past and dropped, as docs/api.md says.
      const uploads = request.submitForm ? app.services.files.startUpload(request.submitForm, request.headers['content-length']) : undefined;
      request.submitUploads = uploads;
      parseMultipartFields(request.headers, payload, config.submitMaxBodyBytes, uploads).then(
        (fields) => done(null, fields),
        (err: Error) => done(err, undefined),
      );
    });

    const limitPerMinute = config.submitRateLimitPerMinute;
    // Callback style: with the rate limit off nothing here waits, and no promise is made.
    submit.addHook('onRequest', (request, reply, done) => {
      const origin = request.headers.origin;
      reply.header('access-control-allow-origin', origin ?? '*');
      if (origin) reply.header('vary', 'Origin');
      // Cross-origin scripts (client/) read the wait of a 429 to tell the visitor how long.
      reply.header('access-control-expose-headers', 'Retry-After');
      const checkSizeAndForm = () => {
        const declared = Number(request.headers['content-length']);
        if (declared > config.submitMaxBodyBytes) {
          // A form that keeps files takes its files' bytes besides the text fields.
          if (request.method !== 'POST' || !request.headers['content-type']?.toLowerCase().startsWith('multipart/form-data')) return done(tooLarge());
          return lookUpSubmitForm(app, request, (err) => {
            const form = request.submitForm;
            if (!form || form.files !== 'store') return done(tooLarge());
            if (declared > config.submitMaxBodyBytes + form.maxTotalBytes + MULTIPART_OVERHEAD_BYTES * form.maxFiles) return done(tooLarge());
            done(err);
          });
        }
        if (request.method !== 'POST') return done();
        lookUpSubmitForm(app, request, done);
      };
      // Counted before anything else is checked: a refused request counts like an accepted one.
      if (limitPerMinute > 0 && request.method === 'POST') limitSubmit(app, request, reply, limitPerMinute).then(checkSizeAndForm, done);
      else checkSizeAndForm();
    });

    /** Every refusal of the submit URL, thrown or returned: JSON, a redirect or a hosted page. */
    const answerRefusal = async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      // Refusals are answered in the check phase, together with the others of this turn of the
      // event loop, as accepted submissions are after their batch. Each written in the turn that
      // read its request, they cost the server and the client twice the CPU a refusal under a
      // flood, with the same syscalls per request (docs/performance.md#refusals-in-the-check-phase).
      // A refusal waits at most the rest of its turn.
      await answerInCheckPhase();
      const appError = toAppError(error);
      if (appError.statusCode >= 500) request.log.error({ err: error }, 'submit failed');
      const form = request.submitForm === undefined ? await findFormQuietly(app, request) : (request.submitForm ?? undefined);
      // One language per submission: the JSON a script shows and the hosted page alike.
      const language = chooseLanguage(form?.language, request.headers['accept-language']);
      const localized = localizedError(appError, language);
      if (respondsWithJson(request.headers.accept, request.headers['content-type'], form)) {
        return sendAppError(reply.header('content-language', language), localized);
      }
      for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
      if (form?.errorUrl) return reply.code(303).header('location', errorDestination(form.errorUrl, appError.code)).send();
      return reply
        .code(appError.statusCode)
        .header('content-security-policy', HOSTED_PAGE_CSP)
        .header('content-language', language)
        .type('text/html; charset=utf-8')
        .send(
          errorPage(language, appError.code, backUrl(request.headers.referer, ownOrigin, form), localized.fieldErrors, appError.textKeys?.params && appError.textKeys.message ? localized.message : undefined),
        );
    };
    submit.setErrorHandler(answerRefusal);

    submit.post<{ Params: { formId: string }; Body: PostedFields | undefined }>(
      SUBMIT_URL,
      {
        schema: {
          tags: ['submit'],
          operationId: 'submitForm',
          summary: 'Submit a form (public; any origin)',
          security: [],
          description:
            'Accepts application/x-www-form-urlencoded, multipart/form-data (file parts ignored, unless the form keeps files: then each is stored and its field holds {"file": {id, name, size, type}}; over a file limit or the account\'s quota 413 payload_too_large, a type the form does not take validation_failed naming the field) or a flat application/json object. ' +
            'Answers JSON (200) or a 303 redirect; see the specification for the response modes. ' +
            'A form with allowedOrigins refuses a request whose Origin host (or, without Origin, Referer host) is not listed: 403 origin_not_allowed, nothing stored. ' +
            "Spam (honeypot, the form's blocked terms, blocked emails and link limit, then the bot check) is stored and answered with filtered: \"spam\". " +
            'Any other method on a submit URL answers 405 method_not_allowed with Allow: POST, OPTIONS.',
          params: paramsSchema,
          headers: submitHeadersSchema,
          body: submitBodySchema,
          response: {
            200: { description: 'JSON mode: the submission was stored (or filtered as spam, or replayed)', ...successSchema },
            303: redirect,
            ...submitErrors,
          },
        },
        validatorCompiler: documentedOnly,
        config: { bodyIsPayload: true },
      },
      async (request, reply) => {
        const idempotencyKey = checkIdempotencyKey(request.headers['idempotency-key']);
        // Looked up in onRequest, which refused an ID that names no form.
        const form = request.submitForm;
        if (!form) throw notFound('Form');
        const fields = request.body;
        if (!fields) throw new AppError('validation_failed', 'A Content-Type and a body are required.');
        const uploads = request.submitUploads;
        if (!uploads) return answerSubmission(request, reply, form, fields, idempotencyKey, undefined);
        try {
          return await answerSubmission(request, reply, form, fields, idempotencyKey, uploads);
        } finally {
          // Refused, failed or replayed: the files are not the stored submission's.
          if (!uploads.attached && uploads.files.length > 0) await uploads.discard();
        }
      },
    );

    /** Admits and stores one parsed submission, and answers it (JSON or 303). */
    const answerSubmission = async (
      request: FastifyRequest,
      reply: FastifyReply,
      form: Form,
      fields: PostedFields,
      idempotencyKey: string | undefined,
      uploads: UploadBatch | undefined,
    ) => {
      const admission = app.services.submissions.admitSubmission(
        {
          fields,
          idempotencyKey,
          uploads,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? '',
          referer: request.headers.referer ?? '',
          origin: request.headers.origin,
          acceptLanguage: request.headers['accept-language'],
          countryHeader: config.countryHeader ? headerValue(request.headers[config.countryHeader]) : undefined,
        },
        form,
      );
      if (admission instanceof AppError) return answerRefusal(admission, request, reply);
      const outcome = await app.services.submissions.acceptSubmission(admission);
      request.submitOutcome = outcome.spam ? 'spam' : 'accepted';
      if (!respondsWithJson(request.headers.accept, request.headers['content-type'], form)) {
        return reply.code(303).header('location', outcome.redirectTo).send();
      }
      return {
        ok: true,
        submissionId: outcome.submissionId,
        ...(outcome.spam ? { filtered: 'spam' } : {}),
        ...(outcome.cached ? { cached: true } : {}),
      };
    };

    submit.options(
      SUBMIT_URL,
      {
        schema: {
          tags: ['submit'],
          operationId: 'submitFormPreflight',
          summary: 'CORS preflight',
          security: [],
          params: paramsSchema,
          response: { 204: { type: 'null', description: 'The CORS headers: any origin may POST' }, ...preflightErrors },
        },
      },
      async (_request, reply) =>
        reply
          .code(204)
          .header('access-control-allow-methods', ALLOW)
          .header('access-control-allow-headers', 'Content-Type, Accept, Idempotency-Key')
          .header('access-control-max-age', '86400')
          .send(),
    );

    submit.route({
      // Every other method Fastify was taught (see acceptEveryHttpMethod); HEAD comes with GET.
      method: app.supportedMethods.filter((method) => !['POST', 'OPTIONS', 'HEAD'].includes(method)),
      url: SUBMIT_URL,
      schema: { hide: true, params: paramsSchema },
      // Answered before any body is read, so no body (or a missing Content-Type) changes the answer.
      onRequest: async () => {
        throw new AppError('method_not_allowed', 'Submit URLs accept POST only.', { headers: { Allow: ALLOW } });
      },
      handler: async () => {
        throw new AppError('method_not_allowed', 'Submit URLs accept POST only.', { headers: { Allow: ALLOW } });
      },
    });
  });
}

/**
 * Per client IP and form. The form is looked up first (the handler and the error handler reuse
 * it) so that every form ID that does not exist shares one counter per client: a client
 * cannot make new counters, and so cannot push its own out, by inventing form IDs.
 */
async function limitSubmit(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, max: number): Promise<void> {
  const formId = (request.params as { formId?: string } | undefined)?.formId ?? '';
  const form = await app.services.submissions.findForm(formId);
  request.submitForm = form ?? null;
  const [count] = await app.limiter.hit({ key: `submit:${clientKey(request.ip)}|${form ? form.id : '?'}`, windowMs: 60_000 });
  setRateLimitHeaders(reply, max, count!);
  if (count!.count > max) throw rateLimited('Too many submissions from this address; try again later.', count!.resetMs);
}

/**
 * The form the submit URL names, before the body is read: an ID that names no form is refused
 * here, so a flood of invented IDs costs no body parsing. Synchronous when the form cache already
 * knows the answer (a known form's every submission), one batched read otherwise.
 */
function lookUpSubmitForm(app: FastifyInstance, request: FastifyRequest, done: (err?: Error) => void): void {
  const settle = (form: Form | null) => {
    request.submitForm = form;
    done(form ? undefined : notFound('Form'));
  };
  if (request.submitForm !== undefined) return settle(request.submitForm);
  const formId = (request.params as { formId?: string } | undefined)?.formId ?? '';
  const known = app.services.submissions.peekForm(formId);
  if (known !== undefined) return settle(known);
  app.services.submissions.findForm(formId).then((form) => settle(form ?? null), done);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The error handler must answer even when the database is the thing that failed. */
async function findFormQuietly(app: FastifyInstance, request: FastifyRequest): Promise<Form | undefined> {
  const formId = (request.params as { formId?: string } | undefined)?.formId;
  if (!formId) return undefined;
  try {
    return await app.services.submissions.findForm(formId);
  } catch {
    return undefined;
  }
}

