import type { FastifyBaseLogger } from 'fastify';
import { linkedPayload, type FileLinker } from '../lib/file-links.js';
import type { Config } from '../config.js';
import type { DatabaseHandle, Trx } from '../db/database.js';
import { newId } from '../lib/ids.js';
import { nowIso } from '../lib/time.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ChannelContext, LeasedItems, OutboxChannel, OutboxSend } from '../outbox/outbox.channel.js';
import { fourfoldBackoff, nextStep, type RetryPolicy } from '../outbox/outbox.policy.js';
import { formatRequest } from './formats/index.js';
import {
  countUnsentIntegrationMessages,
  formHasEnabledIntegrationSql,
  insertMessagesForQueued,
  loadLeasedMessages,
  recordMessageAttempt,
  setIntegrationEnabled,
  skipPendingMessagesOf,
  type ClaimedIntegrationMessage,
} from './integration.repository.js';
import type { IntegrationSender } from './integration.sender.js';
import type { IntegrationKind } from './integration.types.js';
import { buildSubmissionMessage } from './message.js';
import { classifyAnswer, type AttemptOutcome } from './outcome.js';

const submissionLink = (baseUrl: string, submissionId: string) => `${baseUrl}/dashboard/submissions/${submissionId}`;

/**
 * The integrations channel of the outbox: expands a queued submission into one message per
 * enabled integration of its form, claims due messages, formats each for its platform and POSTs
 * it through the SSRF-safe sender. Network errors, timeouts, 429 and 5xx are retried after
 * MAIL_RETRY_BASE_MS ×4 each time (a 429's Retry-After wins), at most MAX_ATTEMPTS in all;
 * 401/403/404/410 turn the integration off with the reason. Every attempt is logged.
 *
 * A claim whose process died mid-send is taken over once it is older than any send can take
 * (a send ends by the timeout; twice that, with room), and on SQLite (one server per file) at start: the only case
 * where a platform may see a message twice.
 */
export class IntegrationChannel implements OutboxChannel {
  readonly name = 'integrations';
  readonly maxInFlight = 16;
  readonly table = 'integration_messages';
  readonly policy: RetryPolicy;
  private context: ChannelContext | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly logger: FastifyBaseLogger,
    private readonly sender: IntegrationSender,
    private readonly metrics?: Metrics,
    /** Signs the links of a payload's files; absent, file values go as stored. */
    private readonly fileLinker?: FileLinker,
  ) {
    this.policy = fourfoldBackoff(config.mailRetryBaseMs);
  }

  async start(context: ChannelContext): Promise<void> {
    this.context = context;
  }

  formHasWorkSql(formIdColumn: string): string {
    return formHasEnabledIntegrationSql(formIdColumn);
  }

  expand(trx: Trx, submissionIds: string[]): Promise<number> {
    return insertMessagesForQueued(trx, submissionIds, nowIso());
  }

  async load(_trx: Trx, leased: LeasedItems): Promise<OutboxSend[]> {
    return (await loadLeasedMessages(leased)).map((row) => () => this.deliver(row));
  }

  countPending(): Promise<number> {
    return countUnsentIntegrationMessages(this.handle.db);
  }

  async close(): Promise<void> {
    await this.sender.close();
  }

  private async deliver(row: ClaimedIntegrationMessage): Promise<void> {
    const attemptedAt = nowIso();
    if (row.enabled !== 1) {
      await this.record(row, { kind: 'failed', reason: 'the integration is turned off' }, { status: null, durationMs: 0 }, attemptedAt, 'skipped');
      return;
    }
    let request;
    try {
      const payload = await linkedPayload(row.s_payload, this.fileLinker);
      const message = buildSubmissionMessage(
        row.form_name,
        { id: row.submission_id, createdAt: row.s_created_at, country: row.s_country, payload },
        submissionLink(this.config.baseUrl, row.submission_id),
      );
      request = formatRequest({ kind: row.kind as IntegrationKind, url: row.url, token: row.token, chatId: row.chat_id }, message, this.config.telegramApiUrl);
    } catch (err) {
      this.logger.error({ err, messageId: row.id }, 'formatting an integration message failed');
      await this.record(row, { kind: 'failed', reason: 'the message could not be formatted' }, { status: null, durationMs: 0 }, attemptedAt);
      return;
    }
    const answer = await this.sender.post(request);
    await this.record(row, classifyAnswer(answer), answer, attemptedAt);
  }

  private async record(
    row: ClaimedIntegrationMessage,
    outcome: AttemptOutcome,
    answer: { status: number | null; durationMs: number },
    attemptedAt: string,
    finalState?: 'skipped',
  ): Promise<void> {
    const attempts = row.attempts + 1;
    const step = nextStep(this.policy, attempts, outcome.kind === 'sent' ? outcome : outcome.kind === 'retry' ? { kind: 'temporary', retryAfterMs: outcome.retryAfterMs } : { kind: 'permanent' });
    const kind = outcome.kind === 'disable' ? 'disable' : step.state === 'pending' ? 'retry' : step.state;
    const delay = step.state === 'pending' ? step.retryInMs : 0;
    const reason = outcome.kind === 'sent' ? null : outcome.reason;
    const logged = kind === 'disable' ? 'disabled' : kind;
    const state = finalState ?? (step.state === 'pending' ? 'pending' : step.state);
    try {
      await this.handle.db.transaction().execute(async (trx) => {
        await recordMessageAttempt(
          trx,
          {
            id: newId('iat'),
            integration_id: row.integration_id,
            message_id: row.id,
            attempted_at: attemptedAt,
            outcome: logged,
            status: answer.status,
            error: step.state === 'failed' && step.gaveUp ? `${reason} (gave up after ${attempts} attempts)` : reason,
            duration_ms: answer.durationMs,
          },
          { state, attempts, nextAttemptAt: kind === 'retry' ? new Date(Date.now() + delay).toISOString() : undefined },
        );
        if (kind === 'disable') {
          await setIntegrationEnabled(trx, row.integration_id, false, reason ?? 'refused');
          await skipPendingMessagesOf(trx, row.integration_id);
        }
      });
    } catch (err) {
      this.logger.error({ err, messageId: row.id }, 'recording an integration attempt failed');
    }
    if (!finalState) this.metrics?.integrationDeliveries.inc({ kind: row.kind, outcome: logged });
    if (kind === 'retry') this.context?.wakeAfter(delay);
    if (kind !== 'sent') this.logger.info({ messageId: row.id, integrationId: row.integration_id, outcome: logged, reason }, 'integration message not delivered');
  }
}
