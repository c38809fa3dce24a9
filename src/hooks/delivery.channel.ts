import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle, Trx } from '../db/database.js';
import { linkedPayload, type FileLinker } from '../lib/file-links.js';
import type { Metrics } from '../metrics/metrics.js';
import type { LeasedItems, OutboxChannel, SendOutcome } from '../outbox/outbox.channel.js';
import { ONCE } from '../outbox/outbox.policy.js';
import { countUnsentDeliveries, formHasHookSql, insertHookDeliveries, loadLeasedDeliveries, type ClaimedDelivery } from './delivery.repository.js';
import { deliveryBody, type DeliverySender } from './delivery.sender.js';
import { deleteHookRow } from './hook.repository.js';

/**
 * The hook channel of the outbox: one signed POST per delivery, attempted once (contract section
 * 6); the owner may send it again, with the same `webhook-id` (section 21). A 410 ends the
 * subscription. The outbox records each attempt.
 */
export class HookDeliveryChannel implements OutboxChannel<ClaimedDelivery> {
  readonly name = 'hooks';
  /** Twice the dispatcher's expansion batch: one batch's deliveries never fill the slots. */
  readonly maxInFlight = 64;
  readonly table = 'hook_deliveries';
  readonly policy = ONCE;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: FastifyBaseLogger,
    private readonly sender: DeliverySender,
    private readonly metrics?: Metrics,
    /** Signs the links of a payload's files; absent, file values go as stored. */
    private readonly fileLinker?: FileLinker,
  ) {}

  formHasWorkSql(formIdColumn: string): string {
    return formHasHookSql(formIdColumn);
  }

  expand(trx: Trx, submissionIds: string[]): Promise<number> {
    return insertHookDeliveries(trx, submissionIds);
  }

  load(_trx: Trx, leased: LeasedItems): Promise<ClaimedDelivery[]> {
    return loadLeasedDeliveries(leased);
  }

  countPending(): Promise<number> {
    return countUnsentDeliveries(this.handle.db);
  }

  async close(): Promise<void> {
    await this.sender.close();
  }

  async send(delivery: ClaimedDelivery): Promise<SendOutcome> {
    const s = delivery.submission;
    let body: string;
    try {
      body = deliveryBody({ ...s, fields: await linkedPayload(s.payload, this.fileLinker) });
    } catch (err) {
      // Never sent: the row cannot become readable by waiting.
      this.logger.error({ err, deliveryId: delivery.id }, 'hook delivery payload does not parse');
      return { answer: { kind: 'permanent' }, status: null, durationMs: 0, error: 'stored payload is not valid JSON' };
    }
    const result = await this.sender.send({ id: delivery.id, targetUrl: delivery.targetUrl, secret: delivery.secret, body });
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    // A 410 asks to be unsubscribed (Zapier's REST-hook convention): settle ends the subscription.
    const gone = result.status === 410;
    this.metrics?.hookDeliveries.inc({ outcome: ok ? 'sent' : gone ? 'gone' : 'failed' });
    if (!ok && !gone) this.logger.info({ deliveryId: delivery.id, status: result.status, error: result.error }, 'hook delivery failed');
    return { answer: { kind: ok ? 'sent' : 'permanent' }, status: result.status, durationMs: result.durationMs, error: result.error, ...(gone ? { settles: true } : {}) };
  }

  /** A 410: the subscription goes, with its deliveries and their attempts. */
  async settle(trx: Trx, delivery: ClaimedDelivery): Promise<void> {
    await deleteHookRow(trx, delivery.hookId);
    this.logger.info({ hookId: delivery.hookId }, 'hook target answered 410 Gone; subscription removed');
  }
}
