import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rethrowUnlessValidation } from '../../../../platform/errors.js';
import { pageContext, sendPage, setFlash } from '../../page.js';
import { SERVICE_KINDS } from '../../../../features/integrations/service-kinds.js';
import { INTEGRATION_LABELS, integrationsPageModel } from './integrations.model.js';

const RECENT_ATTEMPTS = 10;

type AddBody = Record<string, string | undefined>;
/** Every service kind's fields too; a key or a mapping is longer than a URL. */
const serviceFieldProperties = Object.fromEntries(SERVICE_KINDS.flatMap((k) => k.fields.map((f) => [f.name, { type: 'string', maxLength: 20_000 }])));
const addBodySchema = {
  type: 'object',
  properties: {
    ...serviceFieldProperties,
    kind: { type: 'string', maxLength: 20 },
    name: { type: 'string', maxLength: 1000 },
    url: { type: 'string', maxLength: 4096 },
    token: { type: 'string', maxLength: 1000 },
    chatId: { type: 'string', maxLength: 1000 },
    _csrf: { type: 'string' },
  },
} as const;

/** A service kind's input from the form: a repeated field one value a line. */
function serviceInput(kind: string, body: AddBody): Record<string, string | string[] | undefined> {
  const fields = SERVICE_KINDS.find((k) => k.kind === kind)?.fields ?? [];
  return Object.fromEntries(
    fields.map((f) => {
      const value = body[f.name];
      return [f.name, f.repeated && value !== undefined ? value.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '') : value];
    }),
  );
}

/** What the owner sees once after adding: the secret they typed, and what it is. */
function secretShownOnce(kind: string, body: AddBody): { secret: string | undefined; secretLabel: string } {
  const service = SERVICE_KINDS.find((k) => k.kind === kind);
  if (!service) return kind === 'telegram' ? { secret: body.token?.trim(), secretLabel: 'bot token' } : { secret: body.url?.trim(), secretLabel: 'URL' };
  // A key file is the owner's own file, too long to carry to the next page: only a token is shown back.
  const secrets = service.fields.filter((f) => f.secret && !f.multiline && body[f.name]?.trim());
  return { secret: secrets.map((f) => body[f.name]!.trim()).join('\n') || undefined, secretLabel: secrets.map((f) => f.label.toLowerCase()).join(' and ') };
}
const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 }, integrationId: { type: 'string', maxLength: 100 } } } as const;

/** A form's Integrations page: add (secret shown once), test, enable/disable, delete, attempt log. */
export async function integrationPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');
  const integrations = app.services.integrations;
  const pageUrl = (formId: string) => `/dashboard/forms/${formId}/integrations`;

  const render = async (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    extra: { values?: AddBody; fieldErrors?: Record<string, string>; error?: string } = {},
    status = 200,
  ) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    const list = await integrations.listIntegrations(form.id, accountId);
    const attempts = await Promise.all(list.map((i) => integrations.listAttempts(i.id, RECENT_ATTEMPTS, accountId)));
    const ctx = { ...pageContext(request, reply, `${form.name}: integrations`), ...(extra.error ? { error: extra.error } : {}) };
    const model = integrationsPageModel({ form, integrations: list, attempts, values: extra.values ?? {}, fieldErrors: extra.fieldErrors ?? {} });
    return sendPage(reply, 'integrations', ctx, model, status);
  };

  // `?kind=sheets` opens that kind's add form: the chooser works without JavaScript too.
  app.get<{ Params: { id: string }; Querystring: { kind?: string } }>(
    '/dashboard/forms/:id/integrations',
    { schema: { hide: true, params, querystring: { type: 'object', properties: { kind: { type: 'string', maxLength: 20 } } } } },
    async (request, reply) => render(request, reply, request.query.kind ? { values: { kind: request.query.kind } } : {}),
  );

  // Post/redirect/get: the secret travels to the next page in a one-time flash, shown once.
  app.post<{ Params: { id: string }; Body: AddBody }>(
    '/dashboard/forms/:id/integrations',
    { schema: { hide: true, params, body: addBodySchema } },
    async (request, reply) => {
      const body = request.body ?? {};
      // A refused add keeps everything typed, the URL and token too: this answer is the POST's own (never cached), seen only by who typed them.
      const { _csrf: _, ...values } = body;
      const kind = body.kind ?? '';
      const isService = SERVICE_KINDS.some((k) => k.kind === kind);
      const input = isService ? { kind, name: body.name, ...serviceInput(kind, body) } : { kind, name: body.name, url: body.url, token: body.token, chatId: body.chatId };
      try {
        const added = await integrations.addIntegration(request.params.id, input, request.owner!.id);
        setFlash(reply, { notice: `${INTEGRATION_LABELS[added.kind]} integration added.`, ...secretShownOnce(added.kind, body) }, secure);
        return reply.redirect(pageUrl(request.params.id), 303);
      } catch (err) {
        rethrowUnlessValidation(err);
        return render(request, reply, { values, fieldErrors: err.fieldErrors ?? {}, error: err.message }, 400);
      }
    },
  );

  app.post<{ Params: { id: string; integrationId: string } }>(
    '/dashboard/forms/:id/integrations/:integrationId/test',
    { schema: { hide: true, params } },
    async (request, reply) => {
      const result = await integrations.sendTest(request.params.integrationId, request.owner!.id);
      const notice = result.sent ? `Test message sent: the platform answered HTTP ${result.status}.` : `Test message not accepted: ${result.error}.`;
      setFlash(reply, { notice }, secure);
      return reply.redirect(pageUrl(request.params.id), 303);
    },
  );

  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post<{ Params: { id: string; integrationId: string } }>(
      `/dashboard/forms/:id/integrations/:integrationId/${action}`,
      { schema: { hide: true, params } },
      async (request, reply) => {
        await integrations.setEnabled(request.params.integrationId, enabled, request.owner!.id);
        setFlash(reply, { notice: enabled ? 'Integration enabled.' : 'Integration disabled.' }, secure);
        return reply.redirect(pageUrl(request.params.id), 303);
      },
    );
  }

  app.post<{ Params: { id: string; integrationId: string } }>(
    '/dashboard/forms/:id/integrations/:integrationId/delete',
    { schema: { hide: true, params } },
    async (request, reply) => {
      await integrations.removeIntegration(request.params.integrationId, request.owner!.id);
      setFlash(reply, { notice: 'Integration deleted.' }, secure);
      return reply.redirect(pageUrl(request.params.id), 303);
    },
  );
}
