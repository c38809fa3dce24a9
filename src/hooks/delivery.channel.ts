import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle, Trx } from '../db/database.js';
import { BatchedWrites, writeSkippingLocked } from '../lib/batched-writes.js';
import { nowIso } from '../lib/time.js';
import { linkedPayload, type FileLinker } from '../lib/file-links.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ClaimLease, OutboxChannel, OutboxSend } from '../outbox/outbox.channel.js';
import { ONCE } from '../outbox/outbox.policy.js';
import {
  claimPendingDeliveries,
  claimPendingDeliveriesInOneStatement,
  countUnsentDeliveries,
  formHasHookSql,
  insertHookDeliveries,
  recordDeliveryAttempt,
  recordDeliveryAttemptsTogether,
  recordDeliveryAttemptsUnlessLocked,
  type ClaimedDelivery,
  type DeliveryAttempt,
} from './delivery.repository.js';
import { deliveryBody, type DeliverySender } from './delivery.sender.js';
import { deleteHookRow } from './hook.repository.js';

/** Outcomes are written at most this often: at 400 sends/s, groups of ~8 rows instead of ~4. */
const OUTCOME_GAP_MS = 20;

/**
 * The hook channel of the outbox: one signed POST per delivery, attempted once (contract section
 * 6); the owner may send it again, with the same `webhook-id` (section 21). A 410 ends the
 * subscription.
 */
export class HookDeliveryChannel implements OutboxChannel {
  readonly name = 'hooks';
  /** Twice the dispatcher's expansion batch: one batch's deliveries never fill the slots. */
  readonly maxInFlight = 64;
  readonly table = 'hook_deliveries';
  readonly policy = ONCE;
  /** Outcomes of deliveries that finished together, recorded together. */
  private readonly outcomes: BatchedWrites<DeliveryAttempt>;

  constructor(
    private readonly handle: DatabaseHandle,
    config: Pick<Config, 'hookTimeoutMs'>,
    private readonly logger: FastifyBaseLogger,
    private readonly sender: DeliverySender,
    private readonly metrics?: Metrics,
    /** Signs the links of a payload's files; absent, file values go as stored. */
    private readonly fileLinker?: FileLinker,
  ) {
    this.outcomes = new BatchedWrites((attempts) => this.recordOutcomes(attempts), { minGapMs: OUTCOME_GAP_MS });
  }

  formHasWorkSql(formIdColumn: string): string {
    return formHasHookSql(formIdColumn);
  }

  expand(trx: Trx, submissionIds: string[]): Promise<number> {
    return insertHookDeliveries(trx, submissionIds);
  }

  async claim(trx: Trx, limit: number, lease: ClaimLease): Promise<OutboxSend[]> {
    const options = { limit, now: nowIso(), instance: lease.instance };
    const claimed =
      this.handle.dialect === 'postgres' ? await claimPendingDeliveriesInOneStatement(trx, options) : await claimPendingDeliveries(trx, options);
    return claimed.map((delivery) => () => this.deliver(delivery));
  }

  countPending(): Promise<number> {
    return countUnsentDeliveries(this.handle.db);
  }

  async close(): Promise<void> {
    await this.sender.close();
  }

  private async recordOutcomes(attempts: DeliveryAttempt[]): Promise<void> {
    const db = this.handle.db;
    // SQLite has one writer: one statement, no lock is ever waited for.
    if (this.handle.dialect === 'sqlite') return recordDeliveryAttemptsTogether(db, attempts);
    if (attempts.length === 1) return recordDeliveryAttempt(db, attempts[0]!);
    await writeSkippingLocked(
      attempts,
      (a) => a.id,
      (group) => recordDeliveryAttemptsUnlessLocked(db, group),
      (attempt) => recordDeliveryAttempt(db, attempt),
    );
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const attempts = delivery.attempts + 1;
    const s = delivery.submission;
    let body: string;
    try {
      body = deliveryBody({ ...s, fields: await linkedPayload(s.payload, this.fileLinker) });
    } catch (err) {
      // Never sent: the row cannot become readable by waiting.
      await this.outcomes.write({ id: delivery.id, attempts, state: 'failed', attemptedAt: nowIso(), status: null, durationMs: 0, error: 'stored payload is not valid JSON' });
      this.logger.error({ err, deliveryId: delivery.id }, 'hook delivery payload does not parse');
      return;
    }
    const attemptedAt = nowIso();
    const result = await this.sender.send({ id: delivery.id, targetUrl: delivery.targetUrl, secret: delivery.secret, body });
    try {
      if (result.status === 410) {
        // The target asked to be unsubscribed (Zapier's REST-hook convention).
        this.metrics?.hookDeliveries.inc({ outcome: 'gone' });
        await this.handle.db.transaction().execute((trx) => deleteHookRow(trx, delivery.hookId));
        this.logger.info({ hookId: delivery.hookId }, 'hook target answered 410 Gone; subscription removed');
        return;
      }
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      this.metrics?.hookDeliveries.inc({ outcome: ok ? 'sent' : 'failed' });
      await this.outcomes.write({ id: delivery.id, attempts, state: ok ? 'sent' : 'failed', attemptedAt, status: result.status, durationMs: result.durationMs, error: result.error });
      if (!ok) this.logger.info({ deliveryId: delivery.id, status: result.status, error: result.error }, 'hook delivery failed');
    } catch (err) {
      this.logger.error({ err, deliveryId: delivery.id }, 'recording a hook delivery failed');
    }
  }
}
