import type { Executor, Trx } from '../db/database.js';
import { newTimeOrderedId } from '../lib/ids.js';
import { isoMinus, nowIso } from '../lib/time.js';
import { currentActor, currentAddress } from './audit.context.js';
import { auditEventRowToAuditEvent, deleteAuditEventsBefore, insertAuditEvent, listAuditActorLabels, listAuditEventRows } from './audit.repository.js';
import type { AuditAction, AuditActor, AuditEvent, AuditQuery, AuditTarget } from './audit.types.js';

const DAY_MS = 86_400_000;
export const AUDIT_PAGE_SIZE = 50;
export const AUDIT_MAX_LIMIT = 500;

/**
 * The account's audit log. `record` takes the caller's transaction, so an event exists exactly
 * when its change committed; the actor comes from the request or command (audit.context.ts).
 */
export class AuditService {
  constructor(
    private readonly db: Executor,
    private readonly retentionDays: number,
  ) {}

  /**
   * Records one event with the caller's transaction (or connection, for a change of one
   * statement). `actor` is given where the context does not know it yet: a sign-in.
   */
  async record(
    trx: Trx | Executor,
    accountId: string,
    action: AuditAction,
    target?: AuditTarget,
    details?: Record<string, unknown>,
    actor: AuditActor = currentActor(),
  ): Promise<void> {
    const at = nowIso();
    await insertAuditEvent(trx, {
      id: newTimeOrderedId('aud', Date.parse(at)),
      account_id: accountId,
      at,
      actor_type: actor.type,
      actor_id: 'id' in actor ? actor.id : null,
      actor_label: actor.label,
      address: ('address' in actor ? actor.address : undefined) ?? currentAddress() ?? null,
      action,
      target_type: target?.type ?? null,
      target_id: target?.id ?? null,
      details: details && Object.keys(details).length > 0 ? JSON.stringify(details) : null,
    });
  }

  async listEvents(accountId: string, query: AuditQuery = {}): Promise<AuditEvent[]> {
    const limit = Math.min(Math.max(query.limit ?? AUDIT_PAGE_SIZE, 1), AUDIT_MAX_LIMIT);
    return (await listAuditEventRows(this.db, accountId, { ...query, limit })).map(auditEventRowToAuditEvent);
  }

  /** Who appears in the account's log, for the dashboard's filter. */
  listActors(accountId: string): Promise<string[]> {
    return listAuditActorLabels(this.db, accountId);
  }

  /** Deletes events older than AUDIT_RETENTION_DAYS; returns how many. */
  purgeExpired(now = nowIso()): Promise<number> {
    return deleteAuditEventsBefore(this.db, isoMinus(now, this.retentionDays * DAY_MS));
  }
}
