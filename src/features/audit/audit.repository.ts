import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { AuditEventTable } from '../../platform/db/schema.js';
import type { AuditAction, AuditEvent, AuditQuery } from './audit.types.js';

export type AuditEventRow = Selectable<AuditEventTable>;

/** The target's label rides in the details JSON under this key (the table has no column for it). */
const TARGET_LABEL_KEY = 'targetLabel';

/** The details column: the event's details with the target's label; null when there is neither. */
export function detailsToColumn(details: Record<string, unknown> | undefined, targetLabel: string | undefined): string | null {
  const stored = { ...details, ...(targetLabel !== undefined ? { [TARGET_LABEL_KEY]: targetLabel } : {}) };
  return Object.keys(stored).length > 0 ? JSON.stringify(stored) : null;
}

export function auditEventRowToAuditEvent(row: AuditEventRow): AuditEvent {
  const { [TARGET_LABEL_KEY]: label, ...details } = row.details ? (JSON.parse(row.details) as Record<string, unknown>) : {};
  return {
    id: row.id,
    at: row.at,
    actor: { type: row.actor_type as AuditEvent['actor']['type'], id: row.actor_id, label: row.actor_label },
    address: row.address,
    action: row.action as AuditAction,
    target: row.target_type && row.target_id ? { type: row.target_type, id: row.target_id, ...(typeof label === 'string' ? { label } : {}) } : null,
    details: Object.keys(details).length > 0 ? details : null,
  };
}

export async function insertAuditEvent(db: Executor, row: AuditEventTable): Promise<void> {
  await db.insertInto('audit_events').values(row).execute();
}

/** Newest first; `before` pages on (ids sort by time). */
export async function listAuditEventRows(db: Executor, accountId: string, query: Required<Pick<AuditQuery, 'limit'>> & AuditQuery): Promise<AuditEventRow[]> {
  let select = db.selectFrom('audit_events').selectAll().where('account_id', '=', accountId);
  if (query.action) select = select.where('action', '=', query.action);
  if (query.actor) select = select.where((eb) => eb.or([eb('actor_label', '=', query.actor!), eb('actor_id', '=', query.actor!)]));
  if (query.before) select = select.where('id', '<', query.before);
  return select.orderBy('id', 'desc').limit(query.limit).execute();
}

export async function listAuditActorLabels(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('audit_events').select('actor_label').distinct().where('account_id', '=', accountId).orderBy('actor_label').execute();
  return rows.map((row) => row.actor_label);
}

export async function deleteAuditEventsBefore(db: Executor, at: string): Promise<number> {
  const result = await db.deleteFrom('audit_events').where('at', '<', at).executeTakeFirst();
  return Number(result.numDeletedRows);
}
