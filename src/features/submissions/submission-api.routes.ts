import type { FastifyInstance } from 'fastify';
import { MANAGEMENT, errorResponses } from '../../platform/http/error-responses.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './submission-query.service.js';
import { submissionJsonSchema } from './submission.schemas.js';
import { submissionToApiSubmission } from './submission.types.js';

const errors = errorResponses([...MANAGEMENT, 404]);

export async function submissionApiRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string }; Querystring: { limit?: number; cursor?: string; spam?: 'true' | 'false'; since?: string; until?: string } }>(
    '/forms/:id/submissions',
    {
      schema: {
        tags: ['submissions'],
        operationId: 'listFormSubmissions',
        summary: "A form's submissions, newest first, with cursor paging",
        security: [{ bearerAuth: [] }],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Form ID' } } },
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
            cursor: {
              type: 'string',
              description:
                'The nextCursor of the previous page of this form (signed; any other value is validation_failed). It pages on with the spam, since and until it was made with: repeat them as they were or leave them out; other values are validation_failed naming cursor',
            },
            spam: { type: 'string', enum: ['true', 'false'], description: 'Only spam (true) or only not spam (false); both when absent' },
            since: {
              type: 'string',
              maxLength: 64,
              description: 'Only submissions created at or after this instant: an ISO 8601 date (2026-11-22, the start of that UTC day) or date-time with a zone (2026-11-22T10:15:30Z, 2026-11-22T11:15:30+01:00)',
            },
            until: { type: 'string', maxLength: 64, description: 'Only submissions created before this instant (exclusive); the same forms as since, and later than it' },
          },
        },
        response: {
          200: {
            description: 'One page of submissions',
            type: 'object',
            required: ['submissions', 'nextCursor'],
            properties: {
              submissions: { type: 'array', items: submissionJsonSchema },
              nextCursor: { type: ['string', 'null'], description: 'null on the last page' },
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const page = await app.services.submissionQueries.listSubmissions(request.accountId, request.params.id, {
        ...(request.query.limit === undefined ? {} : { limit: request.query.limit }),
        ...(request.query.cursor === undefined ? {} : { cursor: request.query.cursor }),
        ...(request.query.spam === undefined ? {} : { spam: request.query.spam === 'true' }),
        ...(request.query.since === undefined ? {} : { since: request.query.since }),
        ...(request.query.until === undefined ? {} : { until: request.query.until }),
      });
      return { submissions: page.submissions.map(submissionToApiSubmission), nextCursor: page.nextCursor };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/submissions/:id',
    {
      schema: {
        tags: ['submissions'],
        operationId: 'getSubmission',
        summary: 'One submission with its payload',
        security: [{ bearerAuth: [] }],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Submission ID' } } },
        response: {
          200: { description: 'The submission', type: 'object', required: ['submission'], properties: { submission: submissionJsonSchema } },
          ...errors,
        },
      },
    },
    async (request) => ({
      submission: submissionToApiSubmission(await app.services.submissionQueries.getSubmission(request.accountId, request.params.id)),
    }),
  );
}
