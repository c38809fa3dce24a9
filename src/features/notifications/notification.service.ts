import type { AuditService } from '../audit/audit.service.js';
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../platform/lib/token-hash.js';
import { z } from 'zod';
import type { Config } from '../../platform/config.js';
import type { DatabaseHandle, Trx } from '../../platform/db/database.js';
import type { EmailRecipientRow } from '../../platform/db/schema.js';
import { AppError, notFound, validationFailed } from '../../platform/errors.js';
import type { OutboxService } from '../outbox/outbox.service.js';
import type { LoggedAttempt, MessageLogEntry } from '../outbox/outbox.types.js';
import { queueDueDigests } from './digests.js';
import type { FormService } from '../forms/form.service.js';
import type { Form } from '../forms/form.types.js';
import { newId } from '../../platform/lib/ids.js';
import { nowIso } from '../../platform/lib/time.js';
import { composeEmailChangeEmail, composeEmailChangeNotice, composeInvitationEmail, composePasswordResetEmail, composeTestEmail, composeVerificationEmail, type ComposedEmail, type InvitationForEmail } from './views/emails.js';
import { composeAssignmentEmail, type AssignmentForEmail } from './views/assignment-email.js';
import { composeWelcomeEmail, type Welcome } from './views/welcome-email.js';
import { emailLogEntryOf, testSendLogEntryOf } from './email-log.js';
import { addressHash } from './confirmation.js';
import { findSuppressed } from './confirmation.repository.js';
import {
  deleteRecipientRows,
  findRecipientRowByTokenHash,
  insertMessageRows,
  insertRecipientRow,
  findMessageOfAccount,
  listEmailLogRows,
  listRecipientRows,
  listMessageRowsOfSubmission,
  updateRecipientRow,
} from './email.repository.js';
import { findAccountVerifiedAddresses, findFormAccountId, listPendingRecipientRowsOfAccount, releaseHeldMessages } from './recipient.repository.js';
import { composeConfirmationEmail, confirmationTexts } from './confirmation.js';
import type { SmtpMailer } from './mailer.js';
import { MAX_RECIPIENTS, type EmailLogEntry, type Recipient, type RecipientState, type TestEmailResult } from './notification.types.js';

const VERIFICATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const address = z.email().max(254);

function recipientRowToRecipient(row: EmailRecipientRow): Recipient {
  return { id: row.id, address: row.address, state: row.state as RecipientState, verifiedAt: row.verified_at, bouncedAt: row.bounced_at };
}

/** Checks and normalises a recipient list: at most 5 valid addresses, duplicates dropped. */
export function parseRecipientList(addresses: string[]): string[] {
  const list = [...new Set(addresses.map((a) => a.trim().toLowerCase()).filter((a) => a !== ''))];
  const bad = list.find((a) => !address.safeParse(a).success);
  if (bad !== undefined) throw validationFailed('A notification address is not valid.', { notify: `"${bad}" is not an email address` });
  if (list.length > MAX_RECIPIENTS) throw validationFailed('Too many notification addresses.', { notify: `at most ${MAX_RECIPIENTS}` });
  return list;
}

/**
 * Email notifications of forms (docs/email.md): recipients and their verification, test
 * messages, digests and the email log. Every message is queued in the email_messages table and
 * sent by the outbox dispatcher's email channel. With SMTP_URL unset nothing here sends.
 */
export class NotificationService {
  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly forms: FormService,
    /** Wakes the dispatcher after a commit that queued messages; sends again, sends tests, reads the log. */
    private readonly outbox: Pick<OutboxService, 'wake' | 'sendAgain' | 'sendTest' | 'messageLog' | 'listAttemptsOf' | 'listTestSends'>,
    /** Present only with SMTP_URL set. */
    private readonly mailer: SmtpMailer | undefined,
    private readonly audit?: AuditService,
  ) {}

  get emailEnabled(): boolean {
    return this.config.smtpUrl !== undefined;
  }

  async listRecipients(formId: string): Promise<Recipient[]> {
    return (await listRecipientRows(this.handle.db, formId)).map(recipientRowToRecipient);
  }

  /**
   * Replaces the form's recipient list. With `verified` (the CLI: the operator set them) every
   * address counts as verified, a bounced one included. Otherwise an address already verified on
   * another form of the account is verified here too, and a new one is pending and receives a
   * verification email, queued in the same transaction: its notifications are held (kept, not
   * sent) until its link is confirmed, then sent. Addresses kept from the old list keep their state.
   */
  async setRecipients(formId: string, addresses: string[], options: { verified: boolean; accountId?: string }): Promise<Recipient[]> {
    const form = options.accountId ? await this.forms.getFormOfAccount(options.accountId, formId) : await this.forms.getForm(formId);
    const list = parseRecipientList(addresses);
    const queued = await this.handle.db.transaction().execute(async (trx) => {
      const existing = await listRecipientRows(trx, form.id);
      const removedRows = existing.filter((r) => !list.includes(r.address));
      const removed = removedRows.map((r) => r.id);
      // What was held for a removed address goes to the outbox, which skips it: no one to send it to.
      let messages = await releaseHeldMessages(trx, removed, nowIso());
      await deleteRecipientRows(trx, removed);
      const target = { type: 'form', id: form.id, label: form.name };
      for (const r of removedRows) await this.audit?.record(trx, form.accountId, 'notification.recipient_removed', target, { address: r.address });
      for (const addr of list.filter((a) => !existing.some((r) => r.address === a))) {
        await this.audit?.record(trx, form.accountId, 'notification.recipient_added', target, { address: addr });
      }
      const knownToAccount = await findAccountVerifiedAddresses(trx, form.accountId, list);
      const now = nowIso();
      for (const addr of list) {
        const row = existing.find((r) => r.address === addr);
        if (!options.verified && !row && knownToAccount.has(addr)) {
          await insertRecipientRow(trx, { id: newId('rcp'), form_id: form.id, address: addr, state: 'verified', token_hash: null, token_expires_at: null, created_at: now, verified_at: now, bounced_at: null });
        } else if (options.verified) {
          if (row && row.state !== 'verified') await updateRecipientRow(trx, row.id, { state: 'verified', verified_at: now, token_hash: null, token_expires_at: null });
          if (!row) await insertRecipientRow(trx, { id: newId('rcp'), form_id: form.id, address: addr, state: 'verified', token_hash: null, token_expires_at: null, created_at: now, verified_at: now, bounced_at: null });
        } else if (!row) {
          const id = newId('rcp');
          await insertRecipientRow(trx, { id, form_id: form.id, address: addr, state: 'pending', token_hash: null, token_expires_at: null, created_at: now, verified_at: null, bounced_at: null });
          messages += await this.queueVerification(trx, { id, formId: form.id, address: addr }, form.name);
        }
      }
      return messages;
    });
    if (queued > 0) this.outbox.wake();
    return this.listRecipients(form.id);
  }

  /** Sends a new verification link to a pending or bounced address of the owner's form. */
  async resendVerification(accountId: string, formId: string, recipientId: string): Promise<void> {
    const form = await this.forms.getFormOfAccount(accountId, formId);
    const row = (await listRecipientRows(this.handle.db, form.id)).find((r) => r.id === recipientId);
    if (!row) throw new AppError('not_found', 'Recipient not found.');
    if (row.state === 'verified') return;
    await this.handle.db.transaction().execute((trx) => this.queueVerification(trx, { id: row.id, formId: form.id, address: row.address }, form.name));
    this.outbox.wake();
  }

  private async queueVerification(trx: Trx, recipient: { id: string; formId: string; address: string }, formName: string): Promise<number> {
    const token = randomBytes(32).toString('base64url');
    const now = nowIso();
    await updateRecipientRow(trx, recipient.id, { token_hash: hashToken(token), token_expires_at: new Date(Date.now() + VERIFICATION_TTL_MS).toISOString() });
    const content = composeVerificationEmail(formName, `${this.config.baseUrl}/dashboard/verify-email/${token}`);
    return this.queueMessage(trx, { kind: 'verification', formId: recipient.formId, recipientId: recipient.id, to: recipient.address, content, now });
  }

  /** The recipient a live verification link names, without using it (the page that asks to confirm). */
  async findRecipientOfToken(token: string): Promise<Recipient | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
    const row = await findRecipientRowByTokenHash(this.handle.db, hashToken(token));
    if (!row || row.token_expires_at === null || row.token_expires_at < nowIso()) return undefined;
    return recipientRowToRecipient(row);
  }

  /**
   * Confirms a verification link (a POST from its page: mail scanners only GET). The address
   * becomes verified (a bounced one too) on every form of the account that lists it, and what was
   * held for it meanwhile is sent. Single use.
   */
  async verifyRecipient(token: string): Promise<Recipient | undefined> {
    const found = await this.findRecipientOfToken(token);
    if (!found) return undefined;
    const now = nowIso();
    const released = await this.handle.db.transaction().execute(async (trx) => {
      const row = await findRecipientRowByTokenHash(trx, hashToken(token));
      if (!row) return undefined;
      const accountId = await findFormAccountId(trx, row.form_id);
      const rows = accountId ? await listPendingRecipientRowsOfAccount(trx, accountId, row.address) : [row];
      const ids = [...new Set([row.id, ...rows.map((r) => r.id)])];
      for (const id of ids) await updateRecipientRow(trx, id, { state: 'verified', verified_at: now, bounced_at: null, token_hash: null, token_expires_at: null });
      return releaseHeldMessages(trx, ids, now);
    });
    if (released === undefined) return undefined;
    if (released > 0) this.outbox.wake();
    return { ...found, state: 'verified', verifiedAt: now, bouncedAt: null };
  }

  /** The dashboard's button: one test message to each verified recipient, now, each logged by the outbox under its recipient. */
  async sendTestEmails(accountId: string, formId: string): Promise<TestEmailResult[]> {
    const form = await this.forms.getFormOfAccount(accountId, formId);
    const verified = (await listRecipientRows(this.handle.db, form.id)).filter((r) => r.state === 'verified');
    return Promise.all(
      verified.map(async (r) => {
        const sent = await this.outbox.sendTest('email', r.id);
        return { address: r.address, sent: sent?.sent ?? false, reply: sent?.error ?? 'email is off' };
      }),
    );
  }

  /** `formgate mail test <to>`: one message straight through SMTP_URL; throws when it is not accepted. */
  async sendTestEmailNow(to: string): Promise<{ sent: true }> {
    if (!this.mailer) throw validationFailed('Email is off: SMTP_URL is not set.', { SMTP_URL: 'not set' });
    const [recipient] = parseRecipientList([to]);
    if (!recipient) throw validationFailed('Give an address to send the test to.', { to: 'required' });
    const content = composeTestEmail('formgate mail test');
    const result = await this.mailer.send({ toHeader: [recipient], envelopeTo: recipient, ...content });
    if (result.outcome !== 'sent') throw new Error(`the SMTP server did not accept the message: ${result.reply}`);
    return { sent: true };
  }

  /** Queues the "forgot password" email with its single-use link, inside the caller's transaction. */
  async queuePasswordResetEmail(trx: Trx, to: string, link: string, now: string): Promise<number> {
    return this.queueMessage(trx, { kind: 'password_reset', formId: null, recipientId: null, to, content: composePasswordResetEmail(link), now });
  }

  /** Queues the welcome of someone the instance's admin made an account for, inside the caller's transaction; 0 when email is off. */
  async queueWelcomeEmail(trx: Trx, to: string, welcome: Welcome, now: string): Promise<number> {
    return this.queueMessage(trx, { kind: 'welcome', formId: null, recipientId: null, to, content: composeWelcomeEmail(welcome), now });
  }

  /** Queues an invitation's link inside the caller's transaction; 0 when email is off. */
  async queueInvitationEmail(trx: Trx, to: string, invitation: InvitationForEmail, now: string): Promise<number> {
    return this.queueMessage(trx, { kind: 'invitation', formId: null, recipientId: null, to, content: composeInvitationEmail(invitation), now });
  }

  /**
   * Queues, inside the caller's transaction, the email telling a member of submissions someone
   * else assigned them; 0 when email is off or the address is on the suppression list (it asked
   * for no more mail from this instance).
   */
  async queueAssignmentEmail(trx: Trx, to: string, assignment: AssignmentForEmail, now: string): Promise<number> {
    if (!this.emailEnabled) return 0;
    if ((await findSuppressed(trx, [addressHash(to)])).size > 0) return 0;
    return this.queueMessage(trx, { kind: 'assignment', formId: null, recipientId: null, to, content: composeAssignmentEmail(assignment, this.config.baseUrl), now });
  }

  /** Tells the dispatcher, after a commit, that messages were queued. */
  wakeOutbox(): void {
    this.outbox.wake();
  }

  /** Queues an email change's link to the new address and the notice to the old one, inside the caller's transaction. */
  async queueEmailChangeEmails(trx: Trx, change: { oldEmail: string; newEmail: string; link: string; now: string }): Promise<number> {
    const base = { formId: null, recipientId: null, now: change.now };
    return (
      (await this.queueMessage(trx, { ...base, kind: 'email_change', to: change.newEmail, content: composeEmailChangeEmail(change.newEmail, change.link) })) +
      (await this.queueMessage(trx, { ...base, kind: 'email_change_notice', to: change.oldEmail, content: composeEmailChangeNotice(change.newEmail) }))
    );
  }

  /** Queues a message composed now (verification, reset, test); returns 1, or 0 when email is off. */
  async queueMessage(
    trx: Trx,
    m: { kind: string; formId: string | null; recipientId: string | null; to: string; content: ComposedEmail; now: string },
  ): Promise<number> {
    if (!this.emailEnabled) return 0;
    return insertMessageRows(trx, [
      {
        id: newId('eml'),
        kind: m.kind,
        form_id: m.formId,
        submission_id: null,
        recipient_id: m.recipientId,
        to_address: m.to,
        period_start: null,
        period_end: null,
        content: JSON.stringify(m.content),
        state: 'pending',
        attempts: 0,
        next_attempt_at: m.now,
        created_at: m.now,
      },
    ]);
  }

  /**
   * Queues the digest of the last complete period (UTC hour or day) for every verified recipient
   * of a form in hourly or daily mode that had non-spam submissions in it; once per period (the
   * message ID names it). Returns how many were queued.
   */
  async queueDueDigests(now = new Date()): Promise<number> {
    if (!this.emailEnabled) return 0;
    const queued = await queueDueDigests(this.handle.db, now);
    if (queued > 0) this.outbox.wake();
    return queued;
  }

  /** The submission's notification and confirmation emails, as its page lists them (the account's forms only). */
  async listMessagesOfSubmission(accountId: string, submissionId: string): Promise<MessageLogEntry[]> {
    const rows = await listMessageRowsOfSubmission(this.handle.db, accountId, submissionId);
    return this.outbox.messageLog(
      rows.map((m) => ({
        channel: 'email',
        id: m.id,
        kind: m.kind === 'confirmation' ? 'Confirmation email' : 'Notification email',
        target: m.to_address,
        state: m.state,
        attempts: Number(m.attempts),
        createdAt: m.created_at,
        resendable: m.kind === 'submission',
        nextAttemptAt: m.next_attempt_at,
      })),
    );
  }

  /** "Send again" of an owner notification (never a visitor's confirmation): one new attempt through the outbox. */
  async sendMessageAgain(accountId: string, messageId: string): Promise<boolean> {
    const found = await findMessageOfAccount(this.handle.db, accountId, messageId);
    if (!found || found.kind !== 'submission') throw notFound('Email');
    const sentAgain = (trx: Trx) => this.audit?.record(trx, accountId, 'delivery.sent_again', { type: 'email_message', id: found.id }, { channel: 'email' }) ?? Promise.resolve();
    return (await this.outbox.sendAgain('email', [found.id], { record: sentAgain })) > 0;
  }

  /** The form's email log: newest messages and test sends first, each message with every attempt and, if skipped, why. */
  async emailLog(accountId: string, formId: string, limit = 100): Promise<EmailLogEntry[]> {
    const form = await this.forms.getFormOfAccount(accountId, formId);
    const [messages, recipients] = await Promise.all([listEmailLogRows(this.handle.db, form.id, limit), listRecipientRows(this.handle.db, form.id)]);
    const [attempts, tests] = await Promise.all([
      this.outbox.listAttemptsOf(messages.map((m) => m.id)),
      this.outbox.listTestSends(recipients.map((r) => r.id), limit),
    ]);
    const addressOf = new Map(recipients.map((r) => [r.id, r.address]));
    const entries = [
      ...messages.map((m) => emailLogEntryOf(m, attempts.get(m.id) ?? [])),
      ...tests.map((t: LoggedAttempt) => testSendLogEntryOf(t, addressOf.get(t.itemId) ?? '')),
    ];
    return entries.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)).slice(0, limit);
  }

  /**
   * The confirmation this form would send, rendered from a sample submission (the dashboard's
   * preview); the unsubscribe link is a placeholder, not a working token.
   */
  previewConfirmation(form: Form): ComposedEmail {
    const submission = {
      id: 'sub_SAMPLE',
      createdAt: nowIso(),
      payload: { [form.autoReply.field]: 'ada@example.org', name: 'Ada Lovelace', message: 'Hello! <b>Is this escaped?</b>' },
    };
    return composeConfirmationEmail({
      formName: form.name,
      subjectTemplate: form.autoReply.subject,
      bodyTemplate: form.autoReply.body,
      submission,
      texts: confirmationTexts(form.language),
      baseUrl: this.config.baseUrl,
      unsubscribeUrl: `${this.config.baseUrl}/v1/unsubscribe/…`,
    });
  }
}
