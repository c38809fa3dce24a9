import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AUDIT_PAGE_SIZE } from '../../../../features/audit/audit.service.js';
import type { AuditAction } from '../../../../features/audit/audit.types.js';
import { pageContext, sendPage } from '../../page.js';
import { auditActionOptions, auditEventRows, isAuditAction } from './audit.model.js';

type AuditQuerystring = { actor?: string; action?: string; before?: string };

const querystring = {
  type: 'object',
  properties: { actor: { type: 'string', maxLength: 320 }, action: { type: 'string', maxLength: 64 }, before: { type: 'string', maxLength: 64 } },
} as const;

/** The page's and the download's filters: an unknown action is no filter. */
function filtersOf(query: AuditQuerystring): { actor?: string; action?: AuditAction } {
  const actor = query.actor || undefined;
  const action = isAuditAction(query.action) ? query.action : undefined;
  return { ...(actor ? { actor } : {}), ...(action ? { action } : {}) };
}

export async function auditPages(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: AuditQuerystring }>('/dashboard/audit', { schema: { hide: true, querystring } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const filters = filtersOf(request.query);
    const events = await app.services.audit.listEvents(accountId, {
      ...filters,
      ...(request.query.before ? { before: request.query.before } : {}),
      limit: AUDIT_PAGE_SIZE,
    });
    const next = events.length === AUDIT_PAGE_SIZE ? `/dashboard/audit?${new URLSearchParams({ ...filters, before: events.at(-1)!.id })}` : undefined;
    const download = new URLSearchParams(filters).toString();
    return sendPage(reply, 'audit', pageContext(request, reply, 'Audit log'), {
      events: auditEventRows(events),
      actors: await app.services.audit.listActors(accountId),
      actions: auditActionOptions,
      filters: { actor: filters.actor ?? '', action: filters.action ?? '' },
      next,
      downloadUrl: `/dashboard/audit.ndjson${download ? `?${download}` : ''}`,
      retentionDays: app.config.auditRetentionDays,
    });
  });

  // The whole log (or what the filters keep), newest first, one JSON object a line; read from
  // the database a page at a time while it is sent, so a long log is never held in memory.
  app.get<{ Querystring: AuditQuerystring }>('/dashboard/audit.ndjson', { schema: { hide: true, querystring } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const pages = app.services.audit.exportPages(accountId, filtersOf(request.query));
    async function* lines() {
      for await (const page of pages) yield page.map((event) => `${JSON.stringify(event)}\n`).join('');
    }
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${accountId}-audit.ndjson"`)
      .send(Readable.from(lines()));
  });
}
