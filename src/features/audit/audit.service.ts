import type { Executor, Trx } from '../../platform/db/database.js';
import { newTimeOrderedId } from '../../platform/lib/ids.js';
import { isoMinus, nowIso } from '../../platform/lib/time.js';
import { currentActor, currentAddress } from './audit.context.js';
import { auditEventRowToAuditEvent, deleteAuditEventsBefore, detailsToColumn, insertAuditEvent, listAuditActorLabels, listAuditEventRows } from './audit.repository.js';
import type { AuditAction, AuditActor, AuditEvent, AuditQuery, AuditTarget } from './audit.types.js';

const DAY_MS = 86_400_000;
export const AUDIT_PAGE_SIZE = 50;
export const AUDIT_MAX_LIMIT = 500;
/** Events read at a time for a download: the whole log is never held in memory at once. */
const EXPORT_PAGE_SIZE = 500;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The base62 ID that sorts right after `id` (its last digit one up, carrying). */
function successorOf(id: string): string {
  const digits = id.split('');
  for (let i = digits.length - 1; i >= 0; i--) {
    const next = BASE62.indexOf(digits[i]!) + 1;
    if (next === 0) break;
    if (next < BASE62.length) {
      digits[i] = BASE62[next]!;
      return digits.join('');
    }
    digits[i] = '0';
  }
  return `${id}0`;
}

/**
 * The account's audit log. `record` takes the caller's transaction, so an event exists exactly
 * when its change committed; the actor comes from the request or command (audit.context.ts).
 */
export class AuditService {
  /**
   * The last event ID this process made. Events of one millisecond (the recipients of one save)
   * would otherwise sort by their random part: each ID is made greater than the one before.
   */
  private lastId = '';

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
      id: this.nextId(at),
      account_id: accountId,
      at,
      actor_type: actor.type,
      actor_id: 'id' in actor ? actor.id : null,
      actor_label: actor.label,
      address: ('address' in actor ? actor.address : undefined) ?? currentAddress() ?? null,
      action,
      target_type: target?.type ?? null,
      target_id: target?.id ?? null,
      details: detailsToColumn(details, target?.label),
    });
  }

  private nextId(at: string): string {
    const id = newTimeOrderedId('aud', Date.parse(at));
    this.lastId = id > this.lastId ? id : successorOf(this.lastId);
    return this.lastId;
  }

  async listEvents(accountId: string, query: AuditQuery = {}): Promise<AuditEvent[]> {
    const limit = Math.min(Math.max(query.limit ?? AUDIT_PAGE_SIZE, 1), AUDIT_MAX_LIMIT);
    return (await listAuditEventRows(this.db, accountId, { ...query, limit })).map(auditEventRowToAuditEvent);
  }

  /** Every event matching the filters, newest first, a page at a time (the NDJSON download). */
  async *exportPages(accountId: string, query: Omit<AuditQuery, 'before' | 'limit'> = {}): AsyncGenerator<AuditEvent[]> {
    let before: string | undefined;
    for (;;) {
      const rows = await listAuditEventRows(this.db, accountId, { ...query, ...(before ? { before } : {}), limit: EXPORT_PAGE_SIZE });
      if (rows.length > 0) yield rows.map(auditEventRowToAuditEvent);
      if (rows.length < EXPORT_PAGE_SIZE) return;
      before = rows.at(-1)!.id;
    }
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
