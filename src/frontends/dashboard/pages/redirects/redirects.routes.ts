import type { FastifyInstance } from 'fastify';

const formParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } } as const;

/**
 * Addresses that only take a POST, opened directly (a reload after the POST, a bookmark, the
 * back button): each sends the browser to the page its form is on instead of a 404. Only the
 * form's own ID goes into the target, so nothing here can redirect off the dashboard.
 */
const POST_ONLY: Array<[string, (formId: string) => string]> = [
  ['/dashboard/forms/:id/submitter', (id) => `/dashboard/forms/${id}/settings#submitter`],
  ['/dashboard/forms/:id/notifications', (id) => `/dashboard/forms/${id}/settings#notifications`],
  ['/dashboard/forms/:id/submissions/bulk', (id) => `/dashboard/forms/${id}/submissions`],
  ...['add', 'remove', 'unseal'].map((step): [string, (formId: string) => string] => [`/dashboard/forms/:id/sealed/${step}`, (id) => `/dashboard/forms/${id}/settings#sealed`]),
];

export async function postOnlyRedirects(app: FastifyInstance): Promise<void> {
  for (const [path, target] of POST_ONLY) {
    app.get<{ Params: { id: string } }>(path, { schema: { hide: true, params: formParams } }, async (request, reply) => {
      const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
      return reply.redirect(target(encodeURIComponent(form.id)), 303);
    });
  }
}
