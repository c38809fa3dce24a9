import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Agent } from 'undici';
import type { Config } from '../config.js';
import type { DatabaseHandle, Trx } from '../db/database.js';
import { ipLiteralOf, isPublicAddress } from '../lib/addresses.js';
import { BatchedWrites, writeSkippingLocked } from '../lib/batched-writes.js';
import { createSafeAgent, describeSendError, discardBody, type SafeTransportOptions } from '../lib/safe-agent.js';
import { loadUndici } from '../lib/undici.js';
import { nowIso } from '../lib/time.js';
import { linkedPayload, type FileLinker } from '../lib/file-links.js';
import type { Metrics } from '../metrics/metrics.js';
import type { LeasedItems, OutboxChannel, OutboxSend } from '../outbox/outbox.channel.js';
import { ONCE } from '../outbox/outbox.policy.js';
import {
  countUnsentDeliveries,
  formHasHookSql,
  insertHookDeliveries,
  loadLeasedDeliveries,
  recordDeliveryAttempt,
  recordDeliveryAttemptsTogether,
  recordDeliveryAttemptsUnlessLocked,
  type ClaimedDelivery,
  type DeliveryAttempt,
} from './delivery.repository.js';
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

  async load(_trx: Trx, leased: LeasedItems): Promise<OutboxSend[]> {
    return (await loadLeasedDeliveries(leased)).map((delivery) => () => this.deliver(delivery));
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

/** Test seams: trust a local CA, resolve names through a fake DNS. Production passes nothing. */
export type HookTransportOptions = SafeTransportOptions;

export interface DeliveryRequest {
  /** The Standard Webhooks message ID: `${submissionId}.${hookId}`. */
  id: string;
  targetUrl: string;
  secret: string;
  body: string;
}

export interface DeliveryResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

const SECRET_PREFIX = 'whsec_';

/** The flat body of the specification, in its order. */
export function deliveryBody(s: { id: string; formId: string; createdAt: string; ip: string; country: string; userAgent: string; referer: string; fields: unknown }, extra: { test?: true } = {}): string {
  return JSON.stringify({
    id: s.id,
    form_id: s.formId,
    created_at: s.createdAt,
    ip: s.ip,
    country: s.country,
    user_agent: s.userAgent,
    referer: s.referer,
    fields: s.fields,
    ...extra,
  });
}

/**
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's base64 bytes, the
 * Standard Webhooks signature. Node's HMAC, not the reference library's pure-JS SHA-256 (1.5% of
 * the event loop at 400 deliveries/s); the tests verify it with the reference library.
 */
export function signDelivery(secret: string, id: string, timestamp: Date, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const signed = `${id}.${Math.floor(timestamp.getTime() / 1000)}.${body}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

/**
 * One POST, no retries, no redirects followed, a deadline, and at most 64 KiB of the answer read.
 * Connects only to addresses that pass the SSRF rules, checked at connect time.
 */
export class DeliverySender {
  /** Created with the first delivery (undici is loaded only then). */
  private agentInstance: Agent | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
    private readonly transport: HookTransportOptions = {},
  ) {}

  private get agent(): Agent {
    this.agentInstance ??= createSafeAgent(this.timeoutMs, this.allowPrivate, this.transport);
    return this.agentInstance;
  }

  async send(delivery: DeliveryRequest): Promise<DeliveryResult> {
    const started = performance.now();
    const done = (status: number | null, error: string | null): DeliveryResult => ({
      status,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    const url = new URL(delivery.targetUrl);
    // IP literals never reach the lookup: check them here.
    const literal = ipLiteralOf(url);
    if (!this.allowPrivate && literal !== undefined && !isPublicAddress(literal)) {
      return done(null, 'refused: the target is not a public address');
    }
    const now = new Date();
    try {
      const response = await loadUndici().request(url, {
        dispatcher: this.agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Formgate-Hooks/1',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signDelivery(delivery.secret, delivery.id, now, delivery.body),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await discardBody(response.body);
      return done(response.statusCode, null);
    } catch (err) {
      return done(null, describeSendError(err));
    }
  }

  async close(): Promise<void> {
    await this.agentInstance?.close();
  }
}
