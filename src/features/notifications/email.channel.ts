import type { FastifyBaseLogger } from 'fastify';
import type { FileLinker } from '../../platform/lib/file-links.js';
import type { Config } from '../../platform/config.js';
import type { DatabaseHandle, Trx } from '../../platform/db/database.js';
import { nowIso } from '../../platform/lib/time.js';
import { fourfoldBackoff, type AttemptAnswer, type ChannelContext, type LeasedItems, type OutboxChannel, type RecordedAttempt, type RetryPolicy, type SendOutcome } from '../outbox/outbox.types.js';
import { formHasPerSubmissionRecipientSql, insertSubmissionMessages, loadLeasedMessageRows, updateRecipientRow, type ClaimedMessageRow } from './email.repository.js';
import type { SendResult, SmtpMailer } from './mailer.js';
import { findTestRecipient } from './recipient.repository.js';
import { composeTestEmail } from './views/emails.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import { confirmationRows } from './confirmation.js';
import { EmailComposer, type ReadyEmail } from './email.compose.js';
import { admitConfirmationsOf } from './confirmation.guards.js';
import { queueDueDigests } from './digests.js';
import { formSendsConfirmationsSql, insertConfirmationRows, insertSuppression, listConfirmationCandidates } from './confirmation.repository.js';

/** Hooks of the attempt outcome, for metrics. */
export type EmailAttemptListener = (outcome: SendResult['outcome']) => void;

/** Why a message was not sent to its recipient (the email log's words are in email.views.ts). */
const RECIPIENT_NOT_VERIFIED = 'recipient_not_verified';

/** What an SMTP outcome means for the retry policy. */
const answerOf = (result: SendResult): AttemptAnswer['kind'] => (result.outcome === 'sent' ? 'sent' : result.outcome === 'retry' ? 'temporary' : 'permanent');

/**
 * The email channel of the outbox: expands a queued submission into one message per verified
 * recipient and sends each claimed message through SMTP; the outbox records every attempt.
 * Temporary failures are retried after MAIL_RETRY_BASE_MS, ×4 each time, at most five attempts in
 * all; a 5xx for the recipient marks the address bounced.
 */
export class EmailChannel implements OutboxChannel<ClaimedMessageRow> {
  readonly name = 'email';
  /**
   * Eight times the SMTP pool's connections: claims come in batches (fewer transactions), twice
   * the dispatcher's expansion batch so that one batch's messages never fill it, and the pool
   * queues the rest, each message still claimed by this instance only.
   */
  readonly maxInFlight = 64;
  readonly table = 'email_messages';
  readonly policy: RetryPolicy;
  private readonly composer: EmailComposer;
  private digestTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    config: Config,
    private readonly mailer: SmtpMailer,
    private readonly logger: FastifyBaseLogger,
    secrets: InstanceSecretService,
    private readonly onAttempt: EmailAttemptListener = () => {},
    /** Signs the links of a submission's files in the owner's emails (the visitor's confirmation names them only). */
    fileLinker?: FileLinker,
  ) {
    this.composer = new EmailComposer(handle.db, config, secrets, fileLinker);
    this.policy = fourfoldBackoff(config.mailRetryBaseMs);
  }

  async start(context: ChannelContext): Promise<void> {
    const digests = () =>
      queueDueDigests(this.handle.db).then(
        (queued) => queued > 0 && context.wakeAfter(0),
        (err: unknown) => this.logger.warn({ err }, 'queueing email digests failed'),
      );
    void digests();
    this.digestTimer = setInterval(digests, 60_000);
    this.digestTimer.unref();
  }

  formHasWorkSql(formIdColumn: string): string {
    return `${formHasPerSubmissionRecipientSql(formIdColumn)} or ${formSendsConfirmationsSql(formIdColumn)}`;
  }

  async expand(trx: Trx, submissionIds: string[]): Promise<number> {
    const now = nowIso();
    const notifications = await insertSubmissionMessages(trx, submissionIds, now);
    return notifications + (await insertConfirmationRows(trx, confirmationRows(await listConfirmationCandidates(trx, submissionIds), now)));
  }

  async load(trx: Trx, leased: LeasedItems): Promise<ClaimedMessageRow[]> {
    const rows = await loadLeasedMessageRows(leased);
    // A recipient removed, bounced or unverified since the message was queued gets nothing, nor
    // does a confirmation decided against as it was made (too_late): the outbox skips them.
    const decided = (row: ClaimedMessageRow): string | undefined => {
      if ((row.kind === 'submission' || row.kind === 'digest') && row.recipient_state !== 'verified') return RECIPIENT_NOT_VERIFIED;
      return row.kind === 'confirmation' && row.skip_reason !== null ? row.skip_reason : undefined;
    };
    const skips = new Map<string, string>();
    for (const row of rows) {
      const reason = decided(row);
      if (reason !== undefined) skips.set(row.id, reason);
    }
    // The confirmation guards' per-form locks are taken sorted, and held to the dispatcher's
    // commit: it loads at most once a transaction, so they stay in that order.
    const refused = await admitConfirmationsOf(trx, this.handle.dialect, rows.filter((row) => !skips.has(row.id)), nowIso());
    return rows.map((row) => {
      const reason = skips.get(row.id) ?? refused.get(row.id);
      return reason === undefined ? row : { ...row, skip: reason };
    });
  }

  async close(): Promise<void> {
    if (this.digestTimer) clearInterval(this.digestTimer);
    await this.mailer.close();
  }

  async send(row: ClaimedMessageRow): Promise<SendOutcome> {
    let email: ReadyEmail;
    try {
      email = await this.composer.compose(row);
    } catch (err) {
      this.logger.error({ err, messageId: row.id }, 'composing an email failed');
      return { answer: { kind: 'permanent' }, status: null, durationMs: null, error: 'the message could not be composed' };
    }
    const result = await this.mailer.send({ ...email, queuedId: row.id });
    const bounced = result.outcome === 'bounced';
    return { answer: { kind: answerOf(result) }, status: null, durationMs: null, error: result.reply, ...(bounced ? { label: 'bounced', state: 'bounced', settles: true } : {}) };
  }

  /** "Send test" to a verified recipient of a form: one message now, not queued; a bounce here marks nothing. */
  async sendTest(recipientId: string): Promise<SendOutcome | undefined> {
    const recipient = await findTestRecipient(this.handle.db, recipientId);
    if (!recipient || recipient.state !== 'verified') return undefined;
    const content = composeTestEmail(`form "${recipient.formName}"`);
    const result = await this.mailer.send({ toHeader: [recipient.address], envelopeTo: recipient.address, ...content });
    return { answer: { kind: answerOf(result) }, status: null, durationMs: null, error: result.reply };
  }

  /** A bounce marks the recipient bounced; a refused confirmation suppresses the address. */
  async settle(trx: Trx, row: ClaimedMessageRow, attempt: RecordedAttempt): Promise<void> {
    if (row.recipient_id) await updateRecipientRow(trx, row.recipient_id, { state: 'bounced', bounced_at: attempt.attemptedAt });
    // A confirmation the server refused for good: that address gets no more of them.
    if (row.kind === 'confirmation' && row.address_hash) {
      await insertSuppression(trx, { address_hash: row.address_hash, reason: 'bounce', created_at: attempt.attemptedAt });
    }
  }

  recorded(row: ClaimedMessageRow, attempt: RecordedAttempt): void {
    this.onAttempt(attempt.outcome as SendResult['outcome']);
    if (attempt.outcome !== 'sent') this.logger.info({ messageId: row.id, outcome: attempt.outcome, reply: attempt.error }, 'email not delivered');
  }
}
