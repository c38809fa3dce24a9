import type { FastifyBaseLogger } from 'fastify';
import type { AuditService } from '../audit/audit.service.js';
import { linkedPayload, type FileLinker } from '../../platform/lib/file-links.js';
import type { Config } from '../../platform/config.js';
import type { DatabaseHandle, Trx } from '../../platform/db/database.js';
import { nowIso } from '../../platform/lib/time.js';
import type { IntegrationOutcome, Metrics } from '../../platform/metrics/metrics.js';
import { fourfoldBackoff, type ChannelContext, type LeasedItems, type OutboxChannel, type RecordedAttempt, type RetryPolicy, type SendOutcome } from '../outbox/outbox.types.js';
import { ApiClient } from './api-client.js';
import { formatRequest } from './formats/index.js';
import {
  findIntegrationTestTarget,
  formHasEnabledIntegrationSql,
  insertMessagesForQueued,
  loadLeasedMessages,
  messageLeasableSql,
  parseJsonObject,
  setIntegrationEnabled,
  turnOffIntegration,
  type ClaimedIntegrationMessage,
} from './integration.repository.js';
import type { IntegrationSender } from './integration.sender.js';
import type { ChatKind, PlatformRequest } from './integration.types.js';
import { buildSubmissionMessage, sampleMessage, type SubmissionMessage } from './message.js';
import { classifyAnswer, type AttemptOutcome } from './outcome.js';
import type { KindDelivery, KindSender, KindTarget } from './service-kind.js';
import { findServiceKind, SEQUENTIAL_KINDS, SERVICE_KINDS } from './service-kinds.js';

/** A stored payload's fields; none when it is not a JSON object (nothing there to sign up). */
function payloadOf(text: string): Record<string, unknown> {
  try {
    return parseJsonObject(text);
  } catch {
    return {};
  }
}

const submissionLink = (baseUrl: string, submissionId: string) => `${baseUrl}/dashboard/submissions/${submissionId}`;

/**
 * The integrations channel of the outbox: expands a queued submission into one message per
 * enabled integration of its form, formats each claimed message for its platform and POSTs it
 * through the SSRF-safe sender; the outbox records every attempt. Network errors, timeouts, 429
 * and 5xx are retried after MAIL_RETRY_BASE_MS ×4 each time (a 429's Retry-After wins), at most
 * five attempts in all; 401/403/404/410 turn the integration off with the reason. A message of an
 * integration turned off is skipped as it comes due, with the reason it was turned off: turned on
 * again before, it is sent.
 */
export class IntegrationChannel implements OutboxChannel<ClaimedIntegrationMessage> {
  readonly name = 'integrations';
  readonly maxInFlight = 16;
  readonly table = 'integration_messages';
  readonly policy: RetryPolicy;
  /** The sender of each service kind (service-kinds.ts). */
  private readonly kindSenders: Map<string, KindSender>;
  private context: ChannelContext | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly logger: FastifyBaseLogger,
    private readonly sender: IntegrationSender,
    private readonly metrics?: Metrics,
    /** Signs the links of a payload's files; absent, file values go as stored. */
    private readonly fileLinker?: FileLinker,
    private readonly audit?: AuditService,
  ) {
    this.policy = fourfoldBackoff(config.mailRetryBaseMs);
    const http = new ApiClient(config.hookTimeoutMs);
    this.kindSenders = new Map(SERVICE_KINDS.map((k) => [k.kind, k.createSender({ config, http, ownerHttp: sender })]));
  }

  async start(context: ChannelContext): Promise<void> {
    this.context = context;
  }

  leasableSql(table: string): string {
    return messageLeasableSql(table);
  }

  formHasWorkSql(formIdColumn: string): string {
    return formHasEnabledIntegrationSql(formIdColumn);
  }

  expand(trx: Trx, submissionIds: string[]): Promise<number> {
    return insertMessagesForQueued(trx, submissionIds, nowIso(), SEQUENTIAL_KINDS);
  }

  async load(_trx: Trx, leased: LeasedItems): Promise<ClaimedIntegrationMessage[]> {
    const rows = await loadLeasedMessages(leased);
    return rows.map((row) => {
      if (row.enabled !== 1) return { ...row, skip: row.disabled_reason ?? 'the integration is turned off' };
      const skip = findServiceKind(row.kind)?.skip?.(parseJsonObject(row.settings), payloadOf(row.s_payload));
      return skip === undefined ? row : { ...row, skip };
    });
  }

  async close(): Promise<void> {
    await this.sender.close();
  }

  async send(row: ClaimedIntegrationMessage): Promise<SendOutcome> {
    let request;
    try {
      const payload = await linkedPayload(row.s_payload, this.fileLinker);
      const link = submissionLink(this.config.baseUrl, row.submission_id);
      const message = buildSubmissionMessage(row.form_name, { id: row.submission_id, createdAt: row.s_created_at, country: row.s_country, payload }, link);
      const kindSender = this.kindSenders.get(row.kind);
      if (kindSender) {
        const target = { integrationId: row.integration_id, settings: parseJsonObject(row.settings), secrets: parseJsonObject(row.secrets) };
        const delivery = { submissionId: row.submission_id, createdAt: row.s_created_at, fields: message.fields, message, attempts: row.attempts, test: false };
        return await this.deliver(kindSender, target, delivery, true);
      }
      request = formatRequest({ kind: row.kind as ChatKind, url: row.url, token: row.token, chatId: row.chat_id }, message, this.config.telegramApiUrl);
    } catch (err) {
      this.logger.error({ err, messageId: row.id }, 'formatting an integration message failed');
      return { answer: { kind: 'permanent' }, status: null, durationMs: null, error: 'the message could not be formatted' };
    }
    return this.post(request, true);
  }

  /** "Send test": a sample message through the same format and sender, now; a refusal here turns nothing off. */
  async sendTest(integrationId: string): Promise<SendOutcome | undefined> {
    const target = await findIntegrationTestTarget(this.handle.db, integrationId);
    if (!target) return undefined;
    const message = sampleMessage(target.formName, `${this.config.baseUrl}/dashboard/forms/${target.formId}/integrations`);
    const kindSender = this.kindSenders.get(target.kind);
    if (kindSender) {
      const delivery = { submissionId: 'test', createdAt: message.createdAt, fields: message.fields, message, attempts: 0, test: true };
      return this.deliver(kindSender, { integrationId, settings: target.settings, secrets: target.secrets }, delivery, false);
    }
    return this.post(formatRequest({ kind: target.kind as ChatKind, url: target.url, token: target.token, chatId: target.chatId }, message, this.config.telegramApiUrl), false);
  }

  /** A service kind's attempt; a sender that throws is a bug, kept from the outbox as a failure. */
  private async deliver(sender: KindSender, target: KindTarget, delivery: KindDelivery & { message: SubmissionMessage }, settles: boolean): Promise<SendOutcome> {
    try {
      const { outcome, status, durationMs } = await sender.send(target, delivery);
      return this.outcomeOf(outcome, status, durationMs, settles);
    } catch (err) {
      this.logger.error({ err, integrationId: target.integrationId }, 'an integration sender failed');
      return { answer: { kind: 'permanent' }, status: null, durationMs: null, error: 'the message could not be sent (an error in Formgate)' };
    }
  }

  /** One POST and what its answer means; `settles`: a refusal turns the integration off. */
  private async post(request: PlatformRequest, settles: boolean): Promise<SendOutcome> {
    const answer = await this.sender.post(request);
    return this.outcomeOf(classifyAnswer(answer), answer.status, answer.durationMs, settles);
  }

  private outcomeOf(outcome: AttemptOutcome, status: number | null, durationMs: number | null, settles: boolean): SendOutcome {
    if (outcome.kind === 'sent') return { answer: outcome, status, durationMs, error: null };
    if (outcome.kind === 'retry') return { answer: { kind: 'temporary', retryAfterMs: outcome.retryAfterMs }, status, durationMs, error: outcome.reason };
    // A refusal turns the integration off (settle), in the transaction that records it.
    if (outcome.kind === 'disable' && settles) return { answer: { kind: 'permanent' }, label: 'disabled', status, durationMs, error: outcome.reason, settles: true };
    return { answer: { kind: 'permanent' }, status, durationMs, error: outcome.reason };
  }

  /**
   * The platform refused the integration: it is turned off (its queued messages are skipped as
   * they come due). The team's audit log says Formgate turned it off, and why, once however many
   * messages were refused.
   */
  async settle(trx: Trx, row: ClaimedIntegrationMessage, attempt: RecordedAttempt): Promise<void> {
    const reason = attempt.error ?? 'refused';
    if (await turnOffIntegration(trx, row.integration_id, reason)) {
      const target = { type: 'integration', id: row.integration_id, label: row.integration_name };
      const details = { formId: row.form_id, form: row.form_name, kind: row.kind, reason };
      // Sending may run in the context of the request that woke the outbox: Formgate acts here, not that request's user.
      await this.audit?.record(trx, row.account_id, 'integration.disabled', target, details, { type: 'system', label: 'formgate' });
    } else {
      await setIntegrationEnabled(trx, row.integration_id, false, reason);
    }
  }

  recorded(row: ClaimedIntegrationMessage, attempt: RecordedAttempt): void {
    this.metrics?.integrationDeliveries.inc({ kind: row.kind, outcome: attempt.outcome as IntegrationOutcome });
    // The next message of an integration that sends in order may be leased only now that this one is done.
    if (SEQUENTIAL_KINDS.includes(row.kind) && attempt.state !== 'pending') this.context?.wakeAfter(0);
    if (attempt.outcome !== 'sent') this.logger.info({ messageId: row.id, integrationId: row.integration_id, outcome: attempt.outcome, reason: attempt.error }, 'integration message not delivered');
  }
}
