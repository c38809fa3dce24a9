import type { FastifyInstance } from 'fastify';

/** `fetch` taking the path of the app under test (`/v1/…`), or a URL or Request under its origin. */
export type AppFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The headers Node's fetch adds to every request, so an injected request reads as one sent over loopback. */
const FETCH_DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** A path is taken as written (`//dashboard` is a path, not a host); anything else is a URL. */
export function urlOf(input: string | URL, origin: string): string {
  return typeof input === 'string' && input.startsWith('/') ? `${origin}${input}` : String(input);
}

/** Statuses whose Response has no body (Response refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/**
 * `fetch` that hands each request to `app.inject` (the app must be ready, as `listen` makes it):
 * the app's routes, hooks, parsers and error handlers answer it, with no socket. Requests, redirects (followed unless `redirect: 'manual'`)
 * and responses behave as Node's fetch does over loopback. What lives in Node's HTTP server is
 * skipped, so tests of it keep a listening server: the request parser, the request timeouts, the
 * client-error answer and the X-Forwarded-For clean-up (src/platform/http/http-server.ts), slow
 * or broken clients, closing connections.
 */
export function injectFetch(app: FastifyInstance, origin: string): AppFetch {
  return async (input, init) => {
    let request = new Request(input instanceof Request ? input : urlOf(input, origin), init);
    for (let redirects = 0; ; redirects++) {
      const url = new URL(request.url);
      if (url.origin !== origin) throw new Error(`${request.url}: only ${origin} answers without a socket`);
      const headers: Record<string, string> = { ...FETCH_DEFAULT_HEADERS, host: url.host };
      request.headers.forEach((value, name) => (headers[name] = value));
      const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
      const answer = await app.inject({ method: request.method as 'GET', url: url.pathname + url.search, headers, ...(body ? { payload: body } : {}) });
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value === undefined) continue;
        for (const one of [value].flat()) responseHeaders.append(name, String(one));
      }
      const response = new Response(NULL_BODY_STATUS.has(answer.statusCode) || request.method === 'HEAD' ? null : new Uint8Array(answer.rawPayload), {
        status: answer.statusCode,
        statusText: answer.statusMessage,
        headers: responseHeaders,
      });
      Object.defineProperties(response, { url: { value: request.url }, redirected: { value: redirects > 0 } });
      const location = responseHeaders.get('location');
      if (!REDIRECT_STATUS.has(answer.statusCode) || location === null || request.redirect === 'manual') return response;
      if (request.redirect === 'error' || redirects === MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('redirect') });
      // As fetch does: a 303, or a POST answered 301 or 302, is followed by a GET without the body.
      const asGet = answer.statusCode === 303 || ((answer.statusCode === 301 || answer.statusCode === 302) && request.method === 'POST');
      const nextHeaders = new Headers(request.headers);
      if (asGet) for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) nextHeaders.delete(name);
      request = new Request(new URL(location, request.url), {
        method: asGet ? 'GET' : request.method,
        headers: nextHeaders,
        redirect: request.redirect,
        ...(asGet || !body ? {} : { body }),
      });
    }
  };
}
