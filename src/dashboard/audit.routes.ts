import type { FastifyInstance } from 'fastify';
import { AUDIT_PAGE_SIZE } from '../audit/audit.service.js';
import { pageContext, sendPage } from './page.js';
import { auditActionOptions, auditEventRows, isAuditAction } from './views/audit.model.js';

type AuditQuerystring = { actor?: string; action?: string; before?: string };

export async function auditPages(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: AuditQuerystring }>(
    '/dashboard/audit',
    {
      schema: {
        hide: true,
        querystring: {
          type: 'object',
          properties: { actor: { type: 'string', maxLength: 320 }, action: { type: 'string', maxLength: 64 }, before: { type: 'string', maxLength: 64 } },
        },
      },
    },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const actor = request.query.actor || undefined;
      const action = isAuditAction(request.query.action) ? request.query.action : undefined;
      const events = await app.services.audit.listEvents(accountId, {
        ...(actor ? { actor } : {}),
        ...(action ? { action } : {}),
        ...(request.query.before ? { before: request.query.before } : {}),
        limit: AUDIT_PAGE_SIZE,
      });
      const next =
        events.length === AUDIT_PAGE_SIZE
          ? `/dashboard/audit?${new URLSearchParams({ ...(actor ? { actor } : {}), ...(action ? { action } : {}), before: events.at(-1)!.id })}`
          : undefined;
      return sendPage(reply, 'audit', pageContext(request, reply, 'Audit log'), {
        events: auditEventRows(events),
        actors: await app.services.audit.listActors(accountId),
        actions: auditActionOptions,
        filters: { actor: actor ?? '', action: action ?? '' },
        next,
        retentionDays: app.config.auditRetentionDays,
      });
    },
  );
}
