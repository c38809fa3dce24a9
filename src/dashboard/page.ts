import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderPage, type PageContext } from './views.js';

export const SESSION_COOKIE = 'fg_session';

/** Sends a dashboard page (HTML, never cached, framed by nobody). */
export function sendPage(reply: FastifyReply, view: string, page: PageContext, data: Record<string, unknown> = {}, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(renderPage(view, page, data));
}

/** The layout's shared context: account and a fresh CSRF token. */
export function pageContext(request: FastifyRequest, reply: FastifyReply, title: string): PageContext {
  return { title, account: request.owner, csrf: reply.generateCsrf() };
}

