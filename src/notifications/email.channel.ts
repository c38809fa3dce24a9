import type { FastifyBaseLogger } from 'fastify';
import type { FileLinker } from '../lib/file-links.js';
import type { Config } from '../config.js';
import type { DatabaseHandle, Trx } from '../db/database.js';
import { BatchedWrites, writeSkippingLocked } from '../lib/batched-writes.js';
import { newId } from '../lib/ids.js';
import { nowIso } from '../lib/time.js';
import type { ChannelContext, LeasedItems, OutboxChannel, OutboxSend } from '../outbox/outbox.channel.js';
import { fourfoldBackoff, nextStep, type RetryPolicy } from '../outbox/outbox.policy.js';
import {
  countUnsentMessages,
  formHasPerSubmissionRecipientSql,
  insertSubmissionMessages,
  loadLeasedMessageRows,
  setMessageState,
  updateRecipientRow,
  type ClaimedMessageRow,
} from './email.repository.js';
import { recordAttempt, recordAttemptsTogether, recordAttemptsUnlessLocked } from './email-attempt.repository.js';
import type { SendResult, SmtpMailer } from './mailer.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import { confirmationRows } from './confirmation.js';
import { EmailComposer, type ReadyEmail } from './email.compose.js';
import { admitConfirmationsOf } from './confirmation.guards.js';
import { queueDueDigests } from './digests.js';
import { formSendsConfirmationsSql, insertConfirmationRows, insertSuppression, listConfirmationCandidates } from './confirmation.repository.js';

/** Attempts are written at most this often: at 400 messages/s, groups of ~8 instead of ~4. */
const ATTEMPTS_GAP_MS = 20;

/** One send's outcome as it is written: the attempt row and the message's new state. */
interface AttemptRecord {
  row: ClaimedMessageRow;
  attempt: { id: string; messageId: string; attemptedAt: string; outcome: SendResult['outcome']; reply: string };
  message: { state: string; attempts: number; nextAttemptAt: string };
}

/** Hooks of the attempt outcome, for metrics. */
export type EmailAttemptListener = (outcome: SendResult['outcome']) => void;

/**
 * The email channel of the outbox: expands a queued submission into one message per verified
 * recipient, claims due messages, sends each through SMTP and records every attempt. Temporary
 * failures are retried after MAIL_RETRY_BASE_MS, ×4 each time, at most five attempts in all; a
 * 5xx for the recipient marks the address bounced.
 */
export class EmailChannel implements OutboxChannel {
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
  private context: ChannelContext | undefined;
  private digestTimer: NodeJS.Timeout | undefined;
  /** Attempts of messages that finished together, recorded together. */
  private readonly attempts: BatchedWrites<AttemptRecord>;

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
    this.attempts = new BatchedWrites((records) => this.recordAttempts(records), { minGapMs: ATTEMPTS_GAP_MS });
    this.policy = fourfoldBackoff(config.mailRetryBaseMs);
  }

  async start(context: ChannelContext): Promise<void> {
    this.context = context;
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

  async load(trx: Trx, leased: LeasedItems): Promise<OutboxSend[]> {
    // The confirmation guards' per-form locks are taken sorted, and held to the dispatcher's
    // commit: it loads at most once a transaction, so they stay in that order.
    const rows = await admitConfirmationsOf(trx, this.handle.dialect, await loadLeasedMessageRows(leased), nowIso());
    return rows.map((row) => () => this.deliver(row));
  }

  countPending(): Promise<number> {
    return countUnsentMessages(this.handle.db);
  }

  async close(): Promise<void> {
    if (this.digestTimer) clearInterval(this.digestTimer);
    await this.mailer.close();
  }

  private async deliver(row: ClaimedMessageRow): Promise<void> {
    // A recipient removed, bounced or unverified since the message was queued gets nothing.
    if ((row.kind === 'submission' || row.kind === 'digest') && row.recipient_state !== 'verified') {
      await setMessageState(this.handle.db, row.id, 'skipped', 'recipient_not_verified');
      return;
    }
    let email: ReadyEmail;
    try {
      email = await this.composer.compose(row);
    } catch (err) {
      this.logger.error({ err, messageId: row.id }, 'composing an email failed');
      await this.record(row, { outcome: 'failed', reply: 'the message could not be composed' });
      return;
    }
    await this.record(row, await this.mailer.send({ ...email, queuedId: row.id }));
  }

  private async record(row: ClaimedMessageRow, result: SendResult): Promise<void> {
    const attempts = row.attempts + 1;
    const step = nextStep(this.policy, attempts, result.outcome === 'sent' ? { kind: 'sent' } : result.outcome === 'retry' ? { kind: 'temporary' } : { kind: 'permanent' });
    const outcome = step.state === 'failed' && step.gaveUp ? 'failed' : result.outcome;
    const now = nowIso();
    const delay = step.state === 'pending' ? step.retryInMs : 0;
    try {
      await this.attempts.write({
        row,
        attempt: { id: newId('att'), messageId: row.id, attemptedAt: now, outcome, reply: result.reply },
        message: { state: outcome === 'retry' ? 'pending' : outcome, attempts, nextAttemptAt: outcome === 'retry' ? new Date(Date.parse(now) + delay).toISOString() : row.next_attempt_at },
      });
    } catch (err) {
      this.logger.error({ err, messageId: row.id }, 'recording an email attempt failed');
    }
    this.onAttempt(outcome);
    if (outcome === 'retry') this.context?.wakeAfter(delay);
    if (outcome !== 'sent') this.logger.info({ messageId: row.id, outcome, reply: result.reply }, 'email not delivered');
  }

  /** The attempts of messages that finished together. */
  private async recordAttempts(records: AttemptRecord[]): Promise<void> {
    // SQLite has one writer: one transaction, no lock is ever waited for. PostgreSQL: a single
    // outcome too takes the one statement (a round trip, where its own transaction took four).
    if (this.handle.dialect === 'sqlite') return this.recordInOneTransaction(records);
    await writeSkippingLocked(
      records,
      (r) => r.attempt.messageId,
      // A bounce also changes the recipient and the suppression list: one at a time.
      (group) => recordAttemptsUnlessLocked(this.handle.db, group.filter((r) => r.attempt.outcome !== 'bounced')),
      (record) => this.recordInOneTransaction([record]),
    );
  }

  private async recordInOneTransaction(records: AttemptRecord[]): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      // SQLite: the group in two statements, as the hook channel records its outcomes. A bounce
      // also changes the recipient and the suppression list: bounces one at a time.
      const sqlite = this.handle.dialect === 'sqlite';
      if (sqlite) await recordAttemptsTogether(trx, records.filter((r) => r.attempt.outcome !== 'bounced'));
      for (const { row, attempt, message } of sqlite ? records.filter((r) => r.attempt.outcome === 'bounced') : records) {
        const recorded = await recordAttempt(trx, attempt, message);
        if (recorded && attempt.outcome === 'bounced' && row.recipient_id) {
          await updateRecipientRow(trx, row.recipient_id, { state: 'bounced', bounced_at: attempt.attemptedAt });
        }
        // A confirmation the server refused for good: that address gets no more of them.
        if (attempt.outcome === 'bounced' && row.kind === 'confirmation' && row.address_hash) {
          await insertSuppression(trx, { address_hash: row.address_hash, reason: 'bounce', created_at: attempt.attemptedAt });
        }
      }
    });
  }
}
