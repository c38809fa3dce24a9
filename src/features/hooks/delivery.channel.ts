import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle, Trx } from '../../platform/db/database.js';
import { linkedPayload, type FileLinker } from '../../platform/lib/file-links.js';
import { SafePoster, type PostAnswer, type SafeTransportOptions } from '../../platform/lib/safe-agent.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import { nowIso } from '../../platform/lib/time.js';
import { UNKNOWN_COUNTRY } from '../../platform/lib/text.js';
import { ONCE, type LeasedItems, type OutboxChannel, type SendOutcome } from '../outbox/outbox.types.js';
import { formHasHookSql, insertHookDeliveries, loadLeasedDeliveries, type ClaimedDelivery } from './delivery.repository.js';
import { deleteHookRow, findHookRow } from './hook.repository.js';

/** Test seams: trust a local CA, resolve names through a fake DNS. Production passes nothing. */
export type HookTransportOptions = SafeTransportOptions;

export interface DeliveryRequest {
  /** The Standard Webhooks message ID: `${submissionId}.${hookId}`. */
  id: string;
  targetUrl: string;
  secret: string;
  body: string;
}

export type DeliveryResult = Pick<PostAnswer, 'status' | 'error' | 'durationMs'>;

const SECRET_PREFIX = 'whsec_';

/** The flat body of docs/api.md (REST hooks), in its order. */
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

/** A delivery's signed POST (Standard Webhooks headers) through the SSRF-safe poster. */
export class DeliverySender {
  private readonly poster: SafePoster;

  constructor(timeoutMs: number, allowPrivate: boolean, transport: HookTransportOptions = {}) {
    this.poster = new SafePoster(timeoutMs, allowPrivate, transport);
  }

  async send(delivery: DeliveryRequest): Promise<DeliveryResult> {
    const now = new Date();
    const { status, error, durationMs } = await this.poster.post(
      delivery.targetUrl,
      {
        'content-type': 'application/json',
        'user-agent': 'Formgate-Hooks/1',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signDelivery(delivery.secret, delivery.id, now, delivery.body),
      },
      delivery.body,
    );
    return { status, error, durationMs };
  }

  close(): Promise<void> {
    return this.poster.close();
  }
}

/** A test delivery's body: a sample submission, flagged `test`. */
function testDeliveryBody(formId: string, at: string): string {
  return deliveryBody(
    {
      id: 'sub_test',
      formId,
      createdAt: at,
      ip: '203.0.113.1',
      country: UNKNOWN_COUNTRY,
      userAgent: 'Formgate test delivery',
      referer: '',
      fields: { email: 'test@example.com', message: 'This is a test delivery from the Formgate dashboard.' },
    },
    { test: true },
  );
}

/** A 2xx: the target took it. */
const accepted = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * The hook channel of the outbox: one signed POST per delivery, attempted once; the owner may
 * send it again, with the same `webhook-id` (docs/api.md, REST hooks). A 410 ends the
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
      return { answer: { kind: 'permanent' }, status: null, durationMs: null, error: 'stored payload is not valid JSON' };
    }
    const result = await this.sender.send({ id: delivery.id, targetUrl: delivery.targetUrl, secret: delivery.secret, body });
    const ok = accepted(result.status);
    // A 410 asks to be unsubscribed (Zapier's REST-hook convention): settle ends the subscription.
    const gone = result.status === 410;
    this.metrics?.hookDeliveries.inc({ outcome: ok ? 'sent' : gone ? 'gone' : 'failed' });
    if (!ok && !gone) this.logger.info({ deliveryId: delivery.id, status: result.status, error: result.error }, 'hook delivery failed');
    return { answer: { kind: ok ? 'sent' : 'permanent' }, status: result.status, durationMs: result.durationMs, error: result.error, ...(gone ? { settles: true } : {}) };
  }

  /** "Send test": a signed sample body to the hook's target, now; a 410 here ends nothing. */
  async sendTest(hookId: string): Promise<SendOutcome | undefined> {
    const hook = await findHookRow(this.handle.db, hookId);
    if (!hook) return undefined;
    const body = testDeliveryBody(hook.form_id, nowIso());
    const result = await this.sender.send({ id: `test_${Date.now()}.${hook.id}`, targetUrl: hook.target_url, secret: hook.secret, body });
    return { answer: { kind: accepted(result.status) ? 'sent' : 'permanent' }, status: result.status, durationMs: result.durationMs, error: result.error };
  }

  /** A 410: the subscription goes, with its deliveries and their attempts. */
  async settle(trx: Trx, delivery: ClaimedDelivery): Promise<void> {
    await deleteHookRow(trx, delivery.hookId);
    this.logger.info({ hookId: delivery.hookId }, 'hook target answered 410 Gone; subscription removed');
  }
}
