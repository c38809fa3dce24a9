import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../../../platform/errors.js';
import type { ConfirmModel } from '../../views/confirm.views.js';
import { pageContext, sendPage, setFlash } from '../../page.js';
import { hooksPageModel, readableDeliveryError } from './hooks.model.js';

const RECENT_ATTEMPTS = 10;
/** The spans the hooks page offers for sending failed deliveries again. */
const REDELIVERY_HOURS = [1, 6, 24, 72, 168, 720];

interface HookBody {
  formId?: string;
  targetUrl?: string;
}
const hookBodySchema = {
  type: 'object',
  properties: { formId: { type: 'string' }, targetUrl: { type: 'string' }, _csrf: { type: 'string' } },
} as const;

/** The hook service's reason for refusing a target, as a sentence for the owner. */
function targetUrlSentence(problem: string): string {
  if (/https/.test(problem)) return 'Use an https:// address: hooks are only sent over HTTPS.';
  if (/credentials/.test(problem)) return 'Leave the user name and password out of the address.';
  if (/public address/.test(problem)) return 'Use an address on the public internet: localhost and private network addresses are refused, so a hook cannot reach this server\'s own network.';
  return 'Enter a full address starting with https://, like https://hooks.example.com/formgate.';
}

export async function hookPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');

  const renderHooks = async (request: FastifyRequest, reply: FastifyReply, extra: { values?: HookBody; fieldErrors?: Record<string, string>; error?: string } = {}, status = 200) => {
    const account = request.owner!;
    const [hooks, forms] = await Promise.all([app.services.hooks.listHooks(account.id), app.services.forms.listForms(account.id)]);
    const attempts = await Promise.all(hooks.map((hook) => app.services.hooks.listRecentDeliveries(account.id, hook.id, RECENT_ATTEMPTS)));
    const ctx = { ...pageContext(request, reply, 'Hooks'), ...(extra.error ? { error: extra.error } : {}) };
    return sendPage(reply, 'hooks', ctx, hooksPageModel({ planId: account.planId, isAdmin: request.user?.isAdmin === true, hooks, attempts, forms, values: extra.values ?? {}, fieldErrors: extra.fieldErrors ?? {} }), status);
  };

  app.get('/dashboard/hooks', { schema: { hide: true } }, async (request, reply) => renderHooks(request, reply));

  // Post/redirect/get: the secret travels to the next page in a one-time flash, so a refresh
  // creates nothing and shows nothing again.
  app.post<{ Body: HookBody }>('/dashboard/hooks', { schema: { hide: true, body: hookBodySchema } }, async (request, reply) => {
    const values = { formId: request.body.formId ?? '', targetUrl: (request.body.targetUrl ?? '').trim() };
    const fieldErrors: Record<string, string> = {};
    if (!values.formId) fieldErrors.formId = 'Choose a form';
    if (!values.targetUrl) fieldErrors.targetUrl = 'Enter the https:// address that should receive submissions';
    else if (values.targetUrl.length > 2048) fieldErrors.targetUrl = `Use an address of at most 2048 characters (this one has ${values.targetUrl.length}).`;
    else if (!URL.canParse(values.targetUrl)) fieldErrors.targetUrl = 'Enter a full address starting with https://, like https://hooks.example.com/formgate.';
    if (Object.keys(fieldErrors).length > 0) return renderHooks(request, reply, { values: { ...values, targetUrl: values.targetUrl.slice(0, 4096) }, fieldErrors, error: 'The hook was not created: see the messages by the fields.' }, 400);
    try {
      const { secret } = await app.services.hooks.createHook(request.owner!.id, { formId: values.formId, targetUrl: values.targetUrl });
      setFlash(reply, { notice: 'Hook created.', secret, secretLabel: 'hook secret' }, secure);
      return reply.redirect('/dashboard/hooks', 303);
    } catch (err) {
      if (!(err instanceof AppError) || !['validation_failed', 'not_found', 'plan_required'].includes(err.code)) throw err;
      const problem = err.fieldErrors?.targetUrl;
      const errors: Record<string, string> =
        err.code === 'not_found' ? { formId: 'Choose one of your forms.' } : problem ? { targetUrl: targetUrlSentence(problem) } : {};
      const message = err.code === 'plan_required' ? err.message : 'The hook was not created: see the messages by the fields.';
      return renderHooks(request, reply, { values, fieldErrors: errors, error: message }, err.statusCode);
    }
  });

  app.post<{ Params: { id: string } }>('/dashboard/hooks/:id/test', { schema: { hide: true } }, async (request, reply) => {
    const result = await app.services.hooks.sendTestDelivery(request.owner!.id, request.params.id);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const notice = ok
      ? `Test delivery sent: the target answered HTTP ${result.status} in ${result.durationMs} ms.`
      : `Test delivery failed after ${result.durationMs} ms. ${readableDeliveryError(result.error, result.status)}`;
    setFlash(reply, { notice }, secure);
    return reply.redirect('/dashboard/hooks', 303);
  });

  // The API's redelivery (docs/api.md) over a span ending now, the usual case after an outage.
  app.post<{ Params: { id: string }; Body: { hours?: string } }>(
    '/dashboard/hooks/:id/redeliver',
    { schema: { hide: true, body: { type: 'object', properties: { hours: { type: 'string', maxLength: 4 }, _csrf: { type: 'string' } } } } },
    async (request, reply) => {
      const hours = Number(request.body.hours);
      if (!REDELIVERY_HOURS.includes(hours)) throw new AppError('validation_failed', 'Choose how far back to send failed deliveries again.', { fieldErrors: { hours: 'choose one of the listed spans' } });
      const since = new Date(Date.now() - hours * 3_600_000).toISOString();
      let notice: string;
      try {
        const queued = await app.services.hooks.redeliver(request.owner!.id, request.params.id, { since });
        notice = queued === 0 ? 'No failed deliveries in that span: nothing to send again.' : `Sending ${queued} failed deliver${queued === 1 ? 'y' : 'ies'} again, each with its original webhook-id.`;
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
        notice = err.message;
      }
      setFlash(reply, { notice }, secure);
      return reply.redirect('/dashboard/hooks', 303);
    },
  );

  app.get<{ Params: { id: string } }>('/dashboard/hooks/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const hook = (await app.services.hooks.listHooks(request.owner!.id)).find((h) => h.id === request.params.id);
    if (!hook) throw notFound('Hook');
    const model: ConfirmModel = {
      heading: 'Delete this hook?',
      question: `Submissions will no longer be sent to ${hook.targetUrl}. Its delivery history goes with it. This cannot be undone.`,
      action: `/dashboard/hooks/${hook.id}/delete`,
      confirmLabel: 'Delete hook',
      back: '/dashboard/hooks',
    };
    return sendPage(reply, 'confirm', pageContext(request, reply, 'Delete hook'), { ...model });
  });

  app.post<{ Params: { id: string } }>('/dashboard/hooks/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    await app.services.hooks.deleteHook(request.owner!.id, request.params.id);
    setFlash(reply, { notice: 'Hook deleted.' }, secure);
    return reply.redirect('/dashboard/hooks', 303);
  });
}
