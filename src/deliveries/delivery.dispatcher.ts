import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config.js';
import type { DatabaseHandle, Executor } from '../db/database.js';
import { deleteHookRow } from '../hooks/hook.repository.js';
import { isoMinus, nowIso } from '../lib/time.js';
import type { Metrics } from '../metrics/metrics.js';
import {
  claimPendingDeliveries,
  countOutboxPending,
  fanOutHookDeliveries,
  recordDeliveryAttempt,
  type ClaimedDelivery,
} from './delivery.repository.js';
import { DeliverySender, type DeliveryResult, type HookTransportOptions } from './delivery.sender.js';
import { queueSubmissionOutbound } from './outbound.service.js';

const CHANNEL = 'formgate_deliveries';
const MAX_IN_FLIGHT = 16;
const POLL_INTERVAL_MS = 2000;
/** Submissions fanned out at a time: enough to fill the send slots from a form with one hook. */
const FANOUT_BATCH = MAX_IN_FLIGHT;

/**
 * Sends the hook outbox. A submission is queued as one fan-out row; its per-hook deliveries are
 * created here, a batch at a time, once the deliveries already created are all claimed. Woken at
 * once after a commit that queued some (and, on PostgreSQL, by NOTIFY from any instance), with a
 * poll as a fallback; claims rows so that each delivery is sent by exactly one dispatcher, and
 * sends each once. What a crash left queued is picked up at the next start; a claim a dead
 * process held is taken over once it is older than twice the timeout, which is the only case
 * where a target may see a delivery twice.
 */
export class DeliveryDispatcher {
  private readonly sender: DeliverySender;
  private readonly inFlight = new Set<Promise<void>>();
  private started = false;
  private stopping = false;
  private pumping: Promise<void> | undefined;
  private wakeAgain = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private listener: pg.PoolClient | undefined;
  private releaseListener: ((broken: boolean) => void) | undefined;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly logger: FastifyBaseLogger,
    transport: HookTransportOptions = {},
    private readonly metrics?: Metrics,
  ) {
    this.sender = new DeliverySender(config.hookTimeoutMs, config.hookAllowPrivateTargets, transport);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.pollTimer = setInterval(() => {
      if (this.handle.pgPool && !this.listener) void this.listen();
      this.wake();
    }, POLL_INTERVAL_MS);
    this.pollTimer.unref();
    if (this.handle.pgPool) void this.listen();
    this.wake();
  }

  /** One signed example delivery to a hook's target, through the same SSRF-safe sender; nothing recorded. */
  async sendTest(hook: { id: string; formId: string; targetUrl: string; secret: string }): Promise<DeliveryResult> {
    const now = nowIso();
    const body = JSON.stringify({
      id: 'sub_test',
      form_id: hook.formId,
      created_at: now,
      ip: '203.0.113.1',
      country: 'XX',
      user_agent: 'Formgate test delivery',
      referer: '',
      fields: { email: 'test@example.com', message: 'This is a test delivery from the Formgate dashboard.' },
      test: true,
    });
    return this.sender.send({ id: `test_${Date.now()}.${hook.id}`, targetUrl: hook.targetUrl, secret: hook.secret, body });
  }

  /** Called after a commit that queued deliveries. */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.pumping) {
      this.wakeAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
    });
  }

  /** Deliveries still to send, for the metrics gauge. */
  countPending(): Promise<number> {
    return countOutboxPending(this.handle.db);
  }

  /**
   * Queues submissions' outbound work inside the caller's transaction (queueSubmissionOutbound)
   * and tells other instances at commit; call wake() after the commit. For paths other than the
   * submit writer, such as releasing a submission marked not spam.
   */
  async queueInTransaction(trx: Executor, submissionIds: string[], options: { releasedAt?: string } = {}): Promise<number> {
    const queued = await queueSubmissionOutbound(trx, submissionIds, options);
    if (queued > 0) await this.announceInTransaction(trx);
    return queued;
  }

  /** Inside a submit transaction that queued deliveries: other instances hear of it at commit. */
  async announceInTransaction(trx: Executor): Promise<void> {
    if (this.handle.dialect === 'postgres') await sql`select pg_notify(${CHANNEL}, '')`.execute(trx);
  }

  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.releaseListener?.(false);
    this.releaseListener = undefined;
    await this.pumping;
    await Promise.all(this.inFlight);
    await this.sender.close();
  }

  private async pump(): Promise<void> {
    do {
      this.wakeAgain = false;
      while (!this.stopping && this.inFlight.size < MAX_IN_FLIGHT) {
        let claimed: ClaimedDelivery[];
        try {
          const now = nowIso();
          claimed = await claimPendingDeliveries(this.handle.db, this.handle.dialect, {
            limit: MAX_IN_FLIGHT - this.inFlight.size,
            now,
            staleBefore: isoMinus(now, 2 * this.config.hookTimeoutMs + 30_000),
          });
        } catch (err) {
          this.logger.warn({ err }, 'claiming hook deliveries failed; retrying at the next poll');
          return;
        }
        if (claimed.length === 0) {
          // Only when every materialised delivery is out: a backlog stays compact fan-out rows.
          if ((await this.fanOut()) === 0) break;
          continue;
        }
        for (const delivery of claimed) this.track(this.deliver(delivery));
      }
    } while (this.wakeAgain && !this.stopping);
  }

  /** Creates the deliveries of the oldest queued submissions; returns how many submissions. */
  private async fanOut(): Promise<number> {
    try {
      return await fanOutHookDeliveries(this.handle.db, this.handle.dialect, FANOUT_BATCH);
    } catch (err) {
      this.logger.warn({ err }, 'fanning out hook deliveries failed; retrying at the next poll');
      return 0;
    }
  }

  private track(delivery: Promise<void>): void {
    // A delivery that throws (say, a stored payload that does not parse) is logged, never left
    // as an unhandled rejection.
    const sending = delivery.catch((err: unknown) => this.logger.error({ err }, 'hook delivery failed unexpectedly'));
    this.inFlight.add(sending);
    void sending.finally(() => {
      this.inFlight.delete(sending);
      // A slot is free: there may be more waiting.
      this.wake();
    });
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const s = delivery.submission;
    let fields: unknown;
    try {
      fields = JSON.parse(s.payload) as unknown;
    } catch (err) {
      // Never sent, never retried: the row cannot become readable by waiting.
      await recordDeliveryAttempt(this.handle.db, delivery.id, {
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
        await deleteHookRow(this.handle.db, delivery.hookId);
        this.logger.info({ hookId: delivery.hookId }, 'hook target answered 410 Gone; subscription removed');
        return;
      }
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      this.metrics?.hookDeliveries.inc({ outcome: ok ? 'sent' : 'failed' });
      await recordDeliveryAttempt(this.handle.db, delivery.id, {
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

  private async listen(): Promise<void> {
    const pool = this.handle.pgPool;
    if (!pool || this.listener || this.stopping) return;
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      this.logger.warn({ err }, 'LISTEN for hook deliveries failed; polling instead');
      return;
    }
    // Released exactly once, whichever comes first: a failed LISTEN, a connection error, stop().
    let released = false;
    const release = (broken: boolean) => {
      if (this.listener === client) this.listener = undefined;
      if (released) return;
      released = true;
      client.release(broken);
    };
    client.on('notification', () => this.wake());
    client.on('error', () => release(true));
    try {
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      this.logger.warn({ err }, 'LISTEN for hook deliveries failed; polling instead');
      release(true);
      return;
    }
    if (released) return;
    if (this.stopping) release(false);
    else {
      this.listener = client;
      this.releaseListener = release;
    }
  }
}
