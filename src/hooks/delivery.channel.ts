import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle, Trx } from '../db/database.js';
import { BatchedWrites, writeSkippingLocked } from '../lib/batched-writes.js';
import { isoMinus, nowIso } from '../lib/time.js';
import { UNKNOWN_COUNTRY } from '../lib/text.js';
import type { Metrics } from '../metrics/metrics.js';
import type { OutboxChannel, OutboxSend } from '../outbox/outbox.channel.js';
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
import { DeliverySender, type DeliveryResult, type HookTransportOptions } from './delivery.sender.js';

/**
 * How often a claim also looks for claims a dead process abandoned. Looking costs a scan of every
 * delivery in `sending` since the last vacuum (each sent delivery leaves such an index entry):
 * 1.3 ms of a 3.9 ms claim at 400 deliveries/s (docs/performance.md#outbound-work-in-batches),
 * while an abandoned claim is only taken over after twice the timeout anyway.
 */
const ABANDONED_CHECK_MS = 5_000;
/** Outcomes are written at most this often: at 400 sends/s, groups of ~8 rows instead of ~4. */
const OUTCOME_GAP_MS = 20;

/**
 * The hook channel of the outbox: one POST per delivery, never retried (contract section 6).
 * A claim a dead process held is taken over once it is older than twice the timeout, which is
 * the only case where a target may see a delivery twice.
 */
export class HookDeliveryChannel implements OutboxChannel {
  readonly name = 'hooks';
  /** Twice the dispatcher's expansion batch: one batch's deliveries never fill the slots. */
  readonly maxInFlight = 64;
  private readonly sender: DeliverySender;
  /** Outcomes of deliveries that finished together, recorded together. */
  private readonly outcomes: BatchedWrites<DeliveryAttempt>;
  private abandonedCheckedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly logger: FastifyBaseLogger,
    transport: HookTransportOptions = {},
    private readonly metrics?: Metrics,
    /** Ends a subscription whose target answered 410 (the hooks feature owns subscriptions). */
    private readonly unsubscribe: (hookId: string) => Promise<void> = async () => {},
  ) {
    this.sender = new DeliverySender(config.hookTimeoutMs, config.hookAllowPrivateTargets, transport);
    this.outcomes = new BatchedWrites((attempts) => this.recordOutcomes(attempts), { minGapMs: OUTCOME_GAP_MS });
  }

  /** One signed example delivery to a hook's target, through the same SSRF-safe sender; nothing recorded. */
  async sendTest(hook: { id: string; formId: string; targetUrl: string; secret: string }): Promise<DeliveryResult> {
    const now = nowIso();
    const body = JSON.stringify({
      id: 'sub_test',
      form_id: hook.formId,
      created_at: now,
      ip: '203.0.113.1',
      country: UNKNOWN_COUNTRY,
      user_agent: 'Formgate test delivery',
      referer: '',
      fields: { email: 'test@example.com', message: 'This is a test delivery from the Formgate dashboard.' },
      test: true,
    });
    return this.sender.send({ id: `test_${Date.now()}.${hook.id}`, targetUrl: hook.targetUrl, secret: hook.secret, body });
  }

  formHasWorkSql(formIdColumn: string): string {
    return formHasHookSql(formIdColumn);
  }

  expand(trx: Trx, submissionIds: string[]): Promise<number> {
    return insertHookDeliveries(trx, submissionIds);
  }

  async claim(trx: Trx, limit: number): Promise<OutboxSend[]> {
    const now = nowIso();
    const lookedAt = performance.now();
    const checkAbandoned = lookedAt - this.abandonedCheckedAt >= ABANDONED_CHECK_MS;
    const staleBefore = checkAbandoned ? isoMinus(now, 2 * this.config.hookTimeoutMs + 30_000) : undefined;
    const options = { limit, now, staleBefore };
    const claimed =
      this.handle.dialect === 'postgres' ? await claimPendingDeliveriesInOneStatement(trx, options) : await claimPendingDeliveries(trx, options);
    // Counted as looked once the claim succeeded; a full claim may have left more abandoned ones,
    // so the next claim looks again.
    if (checkAbandoned && claimed.length < limit) this.abandonedCheckedAt = lookedAt;
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
    const s = delivery.submission;
    let fields: unknown;
    try {
      fields = JSON.parse(s.payload) as unknown;
    } catch (err) {
      // Never sent, never retried: the row cannot become readable by waiting.
      await this.outcomes.write({
        id: delivery.id,
        state: 'failed',
        attemptedAt: nowIso(),
        status: null,
        durationMs: 0,
        error: 'stored payload is not valid JSON',
      });
      this.logger.error({ err, deliveryId: delivery.id }, 'hook delivery payload does not parse');
      return;
    }
    const body = JSON.stringify({
      id: s.id,
      form_id: s.formId,
      created_at: s.createdAt,
      ip: s.ip,
      country: s.country,
      user_agent: s.userAgent,
      referer: s.referer,
      fields,
    });
    const attemptedAt = nowIso();
    const result = await this.sender.send({ id: delivery.id, targetUrl: delivery.targetUrl, secret: delivery.secret, body });
    try {
      if (result.status === 410) {
        // The target asked to be unsubscribed (Zapier's REST-hook convention).
        this.metrics?.hookDeliveries.inc({ outcome: 'gone' });
        await this.unsubscribe(delivery.hookId);
        this.logger.info({ hookId: delivery.hookId }, 'hook target answered 410 Gone; subscription removed');
        return;
      }
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      this.metrics?.hookDeliveries.inc({ outcome: ok ? 'sent' : 'failed' });
      await this.outcomes.write({
        id: delivery.id,
        state: ok ? 'sent' : 'failed',
        attemptedAt,
        status: result.status,
        durationMs: result.durationMs,
        error: result.error,
      });
      if (!ok) this.logger.info({ deliveryId: delivery.id, status: result.status, error: result.error }, 'hook delivery failed');
    } catch (err) {
      this.logger.error({ err, deliveryId: delivery.id }, 'recording a hook delivery failed');
    }
  }
}
