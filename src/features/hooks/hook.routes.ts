import type { FastifyInstance } from 'fastify';
import { sendWrite, writeAnswerHeaders, writeHeaders } from '../../platform/http/api-writes.js';
import { MANAGEMENT, errorResponses } from '../../platform/http/error-responses.js';

const hookProperties = {
  id: { type: 'string' },
  formId: { type: 'string' },
  targetUrl: { type: 'string', format: 'uri' },
  createdAt: { type: 'string', format: 'date-time' },
} as const;

const hookSchema = { type: 'object', required: ['id', 'formId', 'targetUrl', 'createdAt'], properties: hookProperties } as const;

export async function hookRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { formId: string; targetUrl: string } }>(
    '/hooks',
    {
      schema: {
        tags: ['hooks'],
        operationId: 'createHook',
        summary: 'Subscribe a public HTTPS URL to new submissions of a form (Pro or higher)',
        security: [{ bearerAuth: [] }],
        headers: writeHeaders({ ifMatch: false }),
        body: {
          type: 'object',
          required: ['formId', 'targetUrl'],
          additionalProperties: false,
          properties: { formId: { type: 'string', maxLength: 100 }, targetUrl: { type: 'string', maxLength: 2048 } },
        },
        response: {
          201: {
            description: 'Subscribed; the secret is shown only here (and to a repeat with the same Idempotency-Key)',
            headers: writeAnswerHeaders,
            type: 'object',
            required: ['hook'],
            properties: {
              hook: {
                type: 'object',
                required: ['id', 'formId', 'targetUrl', 'createdAt', 'secret'],
                properties: {
                  ...hookProperties,
                  secret: { type: 'string', description: 'whsec_… signing secret, shown only in this response' },
                },
              },
            },
          },
          ...errorResponses([...MANAGEMENT, 403, 404, 413]),
        },
      },
    },
    (request, reply) =>
      sendWrite(app.services.apiIdempotency, request, reply, async () => {
        const { hook, secret } = await app.services.hooks.createHook(request.accountId, request.body);
        return { status: 201, body: { hook: { ...hook, secret } }, headers: {} };
      }),
  );

  app.get(
    '/hooks',
    {
      schema: {
        tags: ['hooks'],
        operationId: 'listHooks',
        summary: "The account's subscriptions, newest first",
        security: [{ bearerAuth: [] }],
        response: {
          200: { description: 'Every subscription of the account', type: 'object', required: ['hooks'], properties: { hooks: { type: 'array', items: hookSchema } } },
          ...errorResponses(MANAGEMENT),
        },
      },
    },
    async (request) => ({ hooks: await app.services.hooks.listHooks(request.accountId) }),
  );

  app.delete<{ Params: { id: string } }>(
    '/hooks/:id',
    {
      schema: {
        tags: ['hooks'],
        operationId: 'deleteHook',
        summary: 'Remove a subscription',
        security: [{ bearerAuth: [] }],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        headers: writeHeaders({ ifMatch: false }),
        response: { 204: { type: 'null', description: 'Removed', headers: writeAnswerHeaders }, ...errorResponses([...MANAGEMENT, 404]) },
      },
    },
    (request, reply) =>
      sendWrite(app.services.apiIdempotency, request, reply, async () => {
        await app.services.hooks.deleteHook(request.accountId, request.params.id);
        return { status: 204, body: null, headers: {} };
      }),
  );

  app.post<{ Params: { id: string }; Body: { since: string; until?: string } }>(
    '/hooks/:id/redeliver',
    {
      schema: {
        tags: ['hooks'],
        operationId: 'redeliverHook',
        summary: 'Send again every delivery of a hook in a time range whose last attempt failed (after an outage)',
        description:
          'Queues one new attempt, with the same webhook-id, for each delivery of the hook whose submission arrived in [since, until) and whose last attempt failed; at most 10,000 per call (validation_failed beyond: narrow the range).',
        security: [{ bearerAuth: [] }],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        body: {
          type: 'object',
          required: ['since'],
          additionalProperties: false,
          properties: {
            since: { type: 'string', maxLength: 64, description: 'ISO 8601 time: deliveries of submissions from then on' },
            until: { type: 'string', maxLength: 64, description: 'ISO 8601 time: deliveries of submissions before then (default: now)' },
          },
        },
        response: {
          202: {
            description: 'Queued; sent by the outbox as soon as it can',
            type: 'object',
            required: ['queued'],
            properties: { queued: { type: 'integer', minimum: 0, maximum: 10000 } },
          },
          ...errorResponses([...MANAGEMENT, 404, 413]),
        },
      },
    },
    async (request, reply) => {
      const queued = await app.services.hooks.redeliver(request.accountId, request.params.id, request.body);
      return reply.code(202).send({ queued });
    },
  );
}
