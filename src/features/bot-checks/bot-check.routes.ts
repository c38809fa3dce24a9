import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../platform/errors.js';
import { ALWAYS, errorResponses } from '../../platform/http/error-responses.js';
import { clientKey, rateLimited, setRateLimitHeaders } from '../../platform/http/rate-limits.js';
import { chooseLanguage } from '../../platform/i18n/i18n.js';
import { ALTCHA_ASSET_PATH, altchaConfigHeader, altchaUrls, altchaWidgetScript } from './altcha-widget.js';

const CHALLENGE_URL = '/v1/challenge/:formId';

const paramsSchema = {
  type: 'object',
  required: ['formId'],
  properties: { formId: { type: 'string', description: 'The form ID' } },
} as const;

const challengeSchema = {
  type: 'object',
  description: 'An ALTCHA challenge: the widget finds the number whose SHA-256 with the salt is the challenge',
  required: ['algorithm', 'challenge', 'maxnumber', 'salt', 'signature'],
  properties: {
    algorithm: { type: 'string', const: 'SHA-256' },
    challenge: { type: 'string' },
    maxnumber: { type: 'integer' },
    salt: { type: 'string', description: 'Carries the form, the issue time and the expiry (signed)' },
    signature: { type: 'string' },
  },
} as const;

/** Open to any origin, like submit: the form's page on any site fetches its challenge. */
function allowAnyOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  reply.header('access-control-allow-origin', origin ?? '*');
  if (origin) reply.header('vary', 'Origin');
}

/** ALTCHA's challenge endpoint and widget script (docs/bot-checks.md): nothing is loaded from another host. */
export async function botCheckRoutes(app: FastifyInstance): Promise<void> {
  const limitPerMinute = app.config.submitRateLimitPerMinute;

  app.get<{ Params: { formId: string }; Querystring: { since?: string } }>(
    CHALLENGE_URL,
    {
      schema: {
        tags: ['submit'],
        operationId: 'getAltchaChallenge',
        summary: "An ALTCHA proof-of-work challenge for the form's widget (public; any origin)",
        security: [],
        description:
          'Signed by this Formgate, valid for 10 minutes, for this form only; its work follows the form\'s altchaComplexity. ' +
          'Rate-limited per client IP and form like submit. The X-Altcha-Config header gives the widget its texts in the ' +
          "form's language and the URL of its next challenge, whose `since` keeps the visit's start: the form's minimum " +
          'fill time counts from the first challenge of a page, not from one fetched again after an expiry.',
        params: paramsSchema,
        querystring: {
          type: 'object',
          properties: { since: { type: 'string', maxLength: 64, description: "The visit's start, as the previous challenge's X-Altcha-Config named it" } },
        },
        response: {
          200: {
            ...challengeSchema,
            headers: {
              'X-Altcha-Config': { type: 'string', description: 'JSON the widget applies: `strings` (its texts) and `challengeurl` (the next challenge)' },
            },
          },
          ...errorResponses([...ALWAYS, 404, 429]),
        },
      },
    },
    async (request, reply) => {
      allowAnyOrigin(request, reply);
      const form = await app.services.forms.findFormCached(request.params.formId);
      if (limitPerMinute > 0) {
        // Unknown IDs share one counter per client, as on submit: inventing IDs makes no new counters.
        const [count] = await app.limiter.hit({ key: `challenge:${clientKey(request.ip)}|${form ? form.id : '?'}`, windowMs: 60_000 });
        setRateLimitHeaders(reply, limitPerMinute, count!);
        if (count!.count > limitPerMinute) throw rateLimited('Too many challenges from this address; try again later.', count!.resetMs);
      }
      if (!form) throw notFound('Form');
      const altcha = app.services.botChecks.altcha;
      const now = Date.now();
      // A missing, forged or stale start is no error: the visit starts now.
      const started = (await altcha.visitStart(form, request.query.since, now)) ?? now;
      const next = `${altchaUrls(app.config.baseUrl, form.id).challenge}?since=${await altcha.startToken(form, started)}`;
      const language = chooseLanguage(form.language, request.headers['accept-language']);
      reply
        .header('cache-control', 'no-store')
        .header('access-control-expose-headers', 'X-Altcha-Config')
        .header('content-language', language)
        .header('x-altcha-config', altchaConfigHeader(language, next));
      return altcha.issueChallenge(form, now, started);
    },
  );

  app.options(
    CHALLENGE_URL,
    {
      schema: {
        tags: ['submit'],
        operationId: 'getAltchaChallengePreflight',
        summary: 'CORS preflight of the challenge URL',
        security: [],
        params: paramsSchema,
        response: { 204: { type: 'null', description: 'The CORS headers: any origin may GET' }, ...errorResponses(ALWAYS) },
      },
    },
    async (request, reply) => {
      allowAnyOrigin(request, reply);
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, OPTIONS')
        .header('access-control-allow-headers', 'Content-Type, Accept')
        .header('access-control-max-age', '86400')
        .send();
    },
  );

  app.get(ALTCHA_ASSET_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      // A module script from another origin needs CORS; the URL in snippets carries the version.
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(altchaWidgetScript()),
  );
}
