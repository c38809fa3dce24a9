import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { chooseLanguage } from '../../platform/i18n/i18n.js';
import { invalidUnsubscribeLinkPage, UNSUBSCRIBE_PAGE_CSP, unsubscribeConfirmPage, unsubscribedPage } from './views/unsubscribe.views.js';

type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

const paramsSchema = { type: 'object', properties: { token: { type: 'string', maxLength: 200 } }, required: ['token'] } as const;

const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .code(status).header('content-security-policy', UNSUBSCRIBE_PAGE_CSP).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);

/**
 * The confirmation email's unsubscribe link (docs/email.md, Unsubscribing): GET shows a page with a
 * button, POST (the button, or a mail client's RFC 8058 one-click POST) adds the address to the
 * suppression list. Not part of the management API.
 */
export async function unsubscribeRoutes(app: FastifyInstance): Promise<void> {
  // The one-click body is `List-Unsubscribe=One-Click`; the answer does not depend on it.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_r, _body, done) => done(null, {}));
  app.addContentTypeParser('multipart/form-data', (_r, _payload, done) => done(null, {}));
  const suppressions = app.services.suppressions;

  const languageOf = (request: FastifyRequest) => chooseLanguage(undefined, request.headers['accept-language']);

  app.get('/v1/unsubscribe/:token', { schema: { hide: true, params: paramsSchema } }, async (request: TokenRequest, reply) =>
    (await suppressions.isValidToken(request.params.token))
      ? html(reply, 200, unsubscribeConfirmPage(languageOf(request)))
      : html(reply, 404, invalidUnsubscribeLinkPage(languageOf(request))),
  );

  app.post('/v1/unsubscribe/:token', { schema: { hide: true, params: paramsSchema } }, async (request: TokenRequest, reply) =>
    (await suppressions.unsubscribe(request.params.token))
      ? html(reply, 200, unsubscribedPage(languageOf(request)))
      : html(reply, 404, invalidUnsubscribeLinkPage(languageOf(request))),
  );
}
