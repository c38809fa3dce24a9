import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rethrowUnlessValidation } from '../../../../platform/errors.js';
import type { Form } from '../../../../features/forms/form.types.js';
import { renderSettingsPage } from './forms.routes.js';

type Body = Record<string, unknown>;

const text = (body: unknown, field: string): string => {
  const value = body && typeof body === 'object' ? (body as Body)[field] : undefined;
  return typeof value === 'string' ? value : '';
};

/** Words for the section's errors, whatever the service called them. */
const RECIPIENT_MESSAGE = 'Paste an age public key: "age1" and 58 more letters and digits, as age-keygen prints it after "Public key:".';

/**
 * The settings page's "Sealed form" section (sealed.views.ts): adding a recipient (which seals
 * the form), removing one, and unsealing. Each answers with the settings page.
 */
export async function sealedFormPages(app: FastifyInstance): Promise<void> {
  const formOf = (request: FastifyRequest<{ Params: { id: string } }>) => app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
  const saved = (request: FastifyRequest, reply: FastifyReply, form: Form, notice: string) => renderSettingsPage(app, request, reply, form, { notice });
  const refused = (request: FastifyRequest, reply: FastifyReply, form: Form, values: Record<string, string>, fieldErrors: Record<string, string>, error: string) =>
    renderSettingsPage(app, request, reply, form, { error, sealed: { values, fieldErrors } }, 400);

  app.post<{ Params: { id: string }; Body: Body }>('/dashboard/forms/:id/sealed/add', { schema: { hide: true } }, async (request, reply) => {
    const form = await formOf(request);
    const values = { recipient: text(request.body, 'recipient'), label: text(request.body, 'label') };
    try {
      const updated = await app.services.forms.addSealedRecipient(form.id, values, request.owner!.id);
      return await saved(request, reply, updated, form.sealed ? 'Recipient added: new submissions are encrypted to it too.' : 'The form is sealed: new submissions are encrypted in the browser.');
    } catch (err) {
      rethrowUnlessValidation(err);
      const fieldErrors: Record<string, string> = {};
      for (const [field, message] of Object.entries(err.fieldErrors ?? {})) {
        if (field === 'files' || (field === 'sealed' && /files/.test(message))) fieldErrors.recipient = 'This form keeps files: set File uploads to "Ignore file parts" first, since files would reach the server in clear.';
        else if (/label/.test(message)) fieldErrors.label = 'Use at most 100 characters of plain text.';
        else if (/at most/.test(message)) fieldErrors.recipient = message.replace(/^at most/, 'A form takes at most');
        else fieldErrors.recipient = RECIPIENT_MESSAGE;
      }
      return refused(request, reply, form, values, fieldErrors, 'The recipient was not added: see the message by the field.');
    }
  });

  app.post<{ Params: { id: string }; Body: Body }>('/dashboard/forms/:id/sealed/remove', { schema: { hide: true } }, async (request, reply) => {
    const form = await formOf(request);
    try {
      const updated = await app.services.forms.removeSealedRecipient(form.id, text(request.body, 'recipient'), request.owner!.id);
      return await saved(request, reply, updated, 'Recipient removed: new submissions are no longer encrypted to it.');
    } catch (err) {
      rethrowUnlessValidation(err);
      return refused(request, reply, form, {}, {}, 'A sealed form keeps at least one recipient: stop sealing it instead.');
    }
  });

  app.post<{ Params: { id: string }; Body: Body }>('/dashboard/forms/:id/sealed/unseal', { schema: { hide: true } }, async (request, reply) => {
    const form = await formOf(request);
    const updated = await app.services.forms.updateForm(form.id, { sealed: null }, request.owner!.id);
    return saved(request, reply, updated, 'The form is no longer sealed: new submissions arrive in clear. Sealed ones stay sealed.');
  });
}
