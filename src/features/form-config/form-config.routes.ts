import type { FastifyInstance } from 'fastify';
import { ifMatchOf, manageOnly, resourceHeaders, sendWrite, writeAnswerHeaders, writeHeaders } from '../../platform/http/api-writes.js';
import { MANAGEMENT, errorResponses } from '../../platform/http/error-responses.js';
import type { IntegrationChanges, NewIntegrationInput } from '../integrations/integration.service.js';
import type { ManagedFormInput } from './form-config.service.js';
import {
  createFormBodySchema,
  idParams,
  integrationInputSchema,
  integrationParams,
  integrationSchema,
  managedFormSchema,
  updateFormBodySchema,
} from './form-config.schemas.js';

const security = [{ bearerAuth: [] }];
const formAnswer = (description: string) => ({ description, headers: resourceHeaders, type: 'object', required: ['form'], properties: { form: managedFormSchema } });
const integrationAnswer = (description: string) => ({
  description,
  headers: resourceHeaders,
  type: 'object',
  required: ['integration'],
  properties: { integration: integrationSchema },
});
const deleted = { 204: { type: 'null', description: 'Deleted', headers: writeAnswerHeaders } };
/** A write's errors: 403 for a key without scope manage, 412 for If-Match, 429 for a repeat of a running write. */
const WRITE_ERRORS = [...MANAGEMENT, 403, 404, 413] as const;

type FormParams = { id: string };
type IntegrationParams = { id: string; integrationId: string };

/**
 * The write API (docs/api.md, Writes): forms and their integrations, for keys of scope manage;
 * a form or an integration read by any key, with its ETag.
 */
export async function formConfigRoutes(app: FastifyInstance): Promise<void> {
  const config = app.services.formConfig;
  const runner = app.services.apiIdempotency;

  app.get<{ Params: FormParams }>(
    '/forms/:id',
    {
      schema: {
        tags: ['forms'],
        operationId: 'getForm',
        summary: 'A form with every setting and its notification recipients',
        security,
        params: idParams,
        response: { 200: formAnswer('The form'), ...errorResponses([...MANAGEMENT, 404]) },
      },
    },
    async (request, reply) => {
      const { resource, etag } = await config.getForm(request.accountId, request.params.id);
      return reply.header('etag', etag).send({ form: resource });
    },
  );

  app.post<{ Body: ManagedFormInput }>(
    '/forms',
    {
      onRequest: manageOnly,
      schema: {
        tags: ['forms'],
        operationId: 'createForm',
        summary: 'Create a form (keys of scope manage)',
        security,
        headers: writeHeaders({ ifMatch: false }),
        body: createFormBodySchema,
        response: { 201: formAnswer('Created'), ...errorResponses(WRITE_ERRORS) },
      },
    },
    (request, reply) =>
      sendWrite(runner, request, reply, async () => {
        const { resource, etag } = await config.createForm(request.accountId, request.body);
        return { status: 201, body: { form: resource }, headers: { etag } };
      }),
  );

  app.patch<{ Params: FormParams; Body: ManagedFormInput }>(
    '/forms/:id',
    {
      onRequest: manageOnly,
      schema: {
        tags: ['forms'],
        operationId: 'updateForm',
        summary: 'Change a form: its name, state, key, any setting, its recipients (keys of scope manage)',
        security,
        params: idParams,
        headers: writeHeaders({ ifMatch: true }),
        body: updateFormBodySchema,
        response: { 200: formAnswer('Changed'), ...errorResponses([...WRITE_ERRORS, 412]) },
      },
    },
    (request, reply) =>
      sendWrite(runner, request, reply, async () => {
        const { resource, etag } = await config.updateForm(request.accountId, request.params.id, request.body, ifMatchOf(request));
        return { status: 200, body: { form: resource }, headers: { etag } };
      }),
  );

  app.delete<{ Params: FormParams }>(
    '/forms/:id',
    {
      onRequest: manageOnly,
      schema: {
        tags: ['forms'],
        operationId: 'deleteForm',
        summary: 'Delete a form with its submissions, files, integrations and hooks (keys of scope manage)',
        security,
        params: idParams,
        headers: writeHeaders({ ifMatch: true }),
        response: { ...deleted, ...errorResponses([...WRITE_ERRORS, 412]) },
      },
    },
    (request, reply) =>
      sendWrite(runner, request, reply, async () => {
        await config.deleteForm(request.accountId, request.params.id, ifMatchOf(request));
        return { status: 204, body: null, headers: {} };
      }),
  );

  app.get<{ Params: FormParams }>(
    '/forms/:id/integrations',
    {
      schema: {
        tags: ['integrations'],
        operationId: 'listIntegrations',
        summary: "A form's integrations, oldest first",
        security,
        params: idParams,
        response: {
          200: { description: 'Every integration of the form', type: 'object', required: ['integrations'], properties: { integrations: { type: 'array', items: integrationSchema } } },
          ...errorResponses([...MANAGEMENT, 404]),
        },
      },
    },
    async (request) => ({ integrations: await config.listIntegrations(request.accountId, request.params.id) }),
  );

  app.get<{ Params: IntegrationParams }>(
    '/forms/:id/integrations/:integrationId',
    {
      schema: {
        tags: ['integrations'],
        operationId: 'getIntegration',
        summary: 'One integration of a form',
        security,
        params: integrationParams,
        response: { 200: integrationAnswer('The integration'), ...errorResponses([...MANAGEMENT, 404]) },
      },
    },
    async (request, reply) => {
      const { resource, etag } = await config.getIntegration(request.accountId, request.params.id, request.params.integrationId);
      return reply.header('etag', etag).send({ integration: resource });
    },
  );

  app.post<{ Params: FormParams; Body: NewIntegrationInput }>(
    '/forms/:id/integrations',
    {
      onRequest: manageOnly,
      schema: {
        tags: ['integrations'],
        operationId: 'createIntegration',
        summary: 'Add an integration to a form (keys of scope manage); its secrets are never shown again',
        security,
        params: idParams,
        headers: writeHeaders({ ifMatch: false }),
        body: integrationInputSchema(['kind']),
        response: { 201: integrationAnswer('Added'), ...errorResponses(WRITE_ERRORS) },
      },
    },
    (request, reply) =>
      sendWrite(runner, request, reply, async () => {
        const { resource, etag } = await config.addIntegration(request.accountId, request.params.id, request.body);
        return { status: 201, body: { integration: resource }, headers: { etag } };
      }),
  );

  app.patch<{ Params: IntegrationParams; Body: IntegrationChanges }>(
    '/forms/:id/integrations/:integrationId',
    {
      onRequest: manageOnly,
      schema: {
        tags: ['integrations'],
        operationId: 'updateIntegration',
        summary: 'Change an integration: its name, settings, secrets, on or off (keys of scope manage)',
        security,
        params: integrationParams,
        headers: writeHeaders({ ifMatch: true }),
        body: integrationInputSchema([]),
        response: { 200: integrationAnswer('Changed'), ...errorResponses([...WRITE_ERRORS, 412]) },
      },
    },
    (request, reply) =>
      sendWrite(runner, request, reply, async () => {
        const { id, integrationId } = request.params;
        const { resource, etag } = await config.updateIntegration(request.accountId, id, integrationId, request.body, ifMatchOf(request));
        return { status: 200, body: { integration: resource }, headers: { etag } };
      }),
  );

  app.delete<{ Params: IntegrationParams }>(
    '/forms/:id/integrations/:integrationId',
    {
      onRequest: manageOnly,
      schema: {
        tags: ['integrations'],
        operationId: 'deleteIntegration',
        summary: 'Remove an integration (keys of scope manage)',
        security,
        params: integrationParams,
        headers: writeHeaders({ ifMatch: true }),
        response: { ...deleted, ...errorResponses([...WRITE_ERRORS, 412]) },
      },
    },
    (request, reply) =>
      sendWrite(runner, request, reply, async () => {
        await config.removeIntegration(request.accountId, request.params.id, request.params.integrationId, ifMatchOf(request));
        return { status: 204, body: null, headers: {} };
      }),
  );
}
