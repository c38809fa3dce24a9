import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalTimeZone, UTC } from '../../platform/lib/time-zone.js';
import { hashToken } from '../../platform/lib/token-hash.js';
import { renderPage, type PageContext } from './views/render.js';

export const SESSION_COOKIE = 'fg_session';
const FLASH_COOKIE = 'fg_flash';
/** Set by the page script (app.js) to the browser's IANA time zone. */
export const TIME_ZONE_COOKIE = 'fg_tz';

/**
 * The zone the dashboard shows times, date filters and chart days in: the browser's, once the
 * page script has told it; UTC before that and without JavaScript (the pages say which).
 */
export function viewerTimeZone(request: FastifyRequest): string {
  return canonicalTimeZone(request.cookies[TIME_ZONE_COOKIE]) ?? UTC;
}

/** What a POST tells the page it redirects to (post/redirect/get), shown once. */
export interface Flash {
  notice?: string;
  /** A secret shown once (a new API key, hook secret or integration URL, up to 2048 characters) and what it is. */
  secret?: string;
  secretLabel?: string;
}

/** Sends a dashboard page (HTML, never cached, framed by nobody). */
export function sendPage(reply: FastifyReply, view: string, page: PageContext, data: Record<string, unknown> = {}, status = 200): FastifyReply {
  const { request } = reply;
  // Loading again would lose a one-time notice or secret (the flash is spent), so those pages stay.
  const reloadable = request.method === 'GET' && !page.notice && !page.secret;
  const viewer = { timeZone: viewerTimeZone(request), zoneCookie: request.cookies[TIME_ZONE_COOKIE] ?? '', reloadable };
  return reply.code(status).type('text/html; charset=utf-8').send(renderPage(view, { ...page, ...viewer }, data));
}

/**
 * Keeps a one-time message for the next page. The cookie is httpOnly, limited to the dashboard
 * and a minute, and cleared by the page that shows it, so a refresh shows nothing again.
 */
export function setFlash(reply: FastifyReply, flash: Flash, secure: boolean): void {
  reply.setCookie(FLASH_COOKIE, Buffer.from(JSON.stringify(flash)).toString('base64url'), {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: 60,
  });
}

function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash {
  const raw = request.cookies[FLASH_COOKIE];
  if (!raw) return {};
  reply.clearCookie(FLASH_COOKIE, { path: '/dashboard' });
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!value || typeof value !== 'object') return {};
    const { notice, secret, secretLabel } = value as Record<string, unknown>;
    return {
      ...(typeof notice === 'string' ? { notice: notice.slice(0, 300) } : {}),
      ...(typeof secret === 'string' ? { secret: secret.slice(0, 2100) } : {}),
      ...(typeof secretLabel === 'string' ? { secretLabel: secretLabel.slice(0, 100) } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * What a CSRF token is bound to: the session it was issued in (the hash of its cookie; a fixed
 * word before sign-in). A token read from, or planted in, another session's pages is refused, even
 * with a CSRF cookie tossed in from a sibling host.
 */
export function csrfUserInfo(request: FastifyRequest): string {
  const session = request.cookies[SESSION_COOKIE];
  return session ? hashToken(session) : 'signed-out';
}

/** A fresh CSRF token for a form on the page. */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: csrfUserInfo(request) });
}

/** The layout's shared context: account, a fresh CSRF token, and the flash of the last POST. */
export function pageContext(request: FastifyRequest, reply: FastifyReply, title: string): PageContext {
  const flash = takeFlash(request, reply);
  return {
    title,
    account: request.owner,
    user: request.user,
    role: request.role,
    memberships: request.memberships,
    csrf: csrfToken(request, reply),
    ...(flash.notice ? { notice: flash.notice } : {}),
    ...(flash.secret ? { secret: flash.secret, secretLabel: flash.secretLabel ?? 'secret' } : {}),
  };
}
