import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClientScript } from './client-script.js';

/** Short, so a new release reaches pages that use the plain URL within minutes. */
const PLAIN_CACHE = 'public, max-age=300';
/** The versioned URL names one build's bytes for ever. */
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';

// Not in the OpenAPI document: a static asset, not an API operation.
const schema = {
  hide: true,
  response: {
    200: { type: 'string', description: 'The browser script (JavaScript)' },
    304: { type: 'null', description: 'Not modified (If-None-Match matched the ETag)' },
  },
} as const;

/**
 * The browser script at /v1/client.js and /v1/client.<hash>.js (and its sealing chunk at
 * /v1/client-seal.<hash>.js), readable from any origin like the
 * submit endpoint (a `<script crossorigin>` with Subresource Integrity needs the CORS header).
 * Any other hash is an unknown route (404): an old URL must never serve other bytes.
 */
export function clientScriptRoutes(script: ClientScript) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const serve = (cacheControl: string, asset: { hash: string; body: Buffer } = script) => async (request: FastifyRequest, reply: FastifyReply) => {
      const etag = `"${asset.hash}"`;
      const origin = request.headers.origin;
      reply.header('access-control-allow-origin', origin ?? '*');
      if (origin) reply.header('vary', 'Origin');
      reply.header('cache-control', cacheControl).header('etag', etag);
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(asset.body);
    };
    app.get('/v1/client.js', { schema }, serve(PLAIN_CACHE));
    app.get(script.versionedPath, { schema }, serve(VERSIONED_CACHE));
    // The sealing chunk has only its versioned URL: the script asks for the build it names.
    if (script.seal) app.get(script.seal.versionedPath, { schema }, serve(VERSIONED_CACHE, script.seal));
  };
}

/** If-None-Match is a list of (possibly weak) tags, or `*`. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}
