import type { Config } from '../../platform/config.js';
import type { Executor } from '../../platform/db/database.js';
import { linkedPayload, type FileLinker } from '../../platform/lib/file-links.js';
import { canonicalTimeZone, UTC } from '../../platform/lib/time-zone.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import { composeConfirmationEmail, confirmationTexts, unsubscribeToken } from './confirmation.js';
import { countDigestSubmissions, listDigestSubmissionRows, listVerifiedAddresses, type ClaimedMessageRow } from './email.repository.js';
import type { OutgoingEmail } from './mailer.js';
import { findAccountTimeZoneOfForm } from './recipient.repository.js';
import { composeDigestEmail, composeSubmissionEmail, DIGEST_MAX_IN_FULL, replyToOf, type ComposedEmail } from './views/emails.js';

/** A leased message made ready for SMTP: everything the mailer takes but the queue ID. */
export type ReadyEmail = Omit<OutgoingEmail, 'queuedId'>;

/**
 * Turns a leased email message into the email itself, by its kind: an owner's notification or
 * digest (To: every verified recipient of the form, so recipients see who else got it), a
 * visitor's confirmation (with one-click unsubscribe), or a message composed when it was queued
 * (verification, reset, test). The To list and the account's time zone are read at most once a
 * second per form: a burst of messages shares one read.
 */
export class EmailComposer {
  private readonly verifiedCache = new Map<string, { value: Promise<string[]>; until: number }>();
  private readonly zoneCache = new Map<string, { value: Promise<string>; until: number }>();

  constructor(
    private readonly db: Executor,
    private readonly config: Pick<Config, 'baseUrl'>,
    private readonly secrets: InstanceSecretService,
    /** Signs the links of a submission's files in the owner's emails (the visitor's confirmation names them only). */
    private readonly fileLinker?: FileLinker,
  ) {}

  async compose(row: ClaimedMessageRow): Promise<ReadyEmail> {
    const perRecipient = row.kind === 'submission' || row.kind === 'digest';
    let toHeader = [row.to_address];
    let replyTo: string | undefined;
    let headers: Record<string, string> | undefined = row.submission_id ? { 'X-Formgate-Submission-Id': row.submission_id } : undefined;
    if (perRecipient) {
      toHeader = [...(await this.verifiedAddresses(row.form_id!))];
      if (!toHeader.includes(row.to_address)) toHeader.push(row.to_address);
    }
    let email: ComposedEmail;
    if (row.kind === 'submission') {
      const payload = await linkedPayload(row.s_payload ?? '{}', this.fileLinker);
      const submission = { id: row.submission_id!, createdAt: row.s_created_at!, country: row.s_country!, payload };
      email = composeSubmissionEmail(row.form_name ?? '', row.form_notify_subject, submission, this.config.baseUrl, await this.timeZoneOf(row.form_id!));
      replyTo = replyToOf(payload);
    } else if (row.kind === 'confirmation') {
      const payload = JSON.parse(row.s_payload ?? '{}') as Record<string, unknown>;
      const url = `${this.config.baseUrl}/v1/unsubscribe/${unsubscribeToken(await this.secrets.getSecret('unsubscribe'), row.to_address)}`;
      email = composeConfirmationEmail({
        formName: row.form_name ?? '',
        subjectTemplate: row.form_auto_reply_subject,
        bodyTemplate: row.form_auto_reply_body,
        submission: { id: row.submission_id!, createdAt: row.s_created_at!, payload },
        texts: confirmationTexts(row.form_language, row.s_language ?? null),
        baseUrl: this.config.baseUrl,
        unsubscribeUrl: url,
      });
      // The visitor's answer goes to the owner.
      replyTo = (await this.verifiedAddresses(row.form_id!))[0];
      headers = { ...headers, 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
    } else if (row.kind === 'digest') {
      email = await this.composeDigest(row);
    } else {
      email = JSON.parse(row.content!) as ComposedEmail;
    }
    return { toHeader, envelopeTo: row.to_address, replyTo, subject: email.subject, text: email.text, html: email.html, ...(headers ? { headers } : {}) };
  }

  private async composeDigest(row: ClaimedMessageRow): Promise<ComposedEmail> {
    const [total, rows] = await Promise.all([
      countDigestSubmissions(this.db, row.form_id!, row.period_start!, row.period_end!),
      listDigestSubmissionRows(this.db, row.form_id!, row.period_start!, row.period_end!, DIGEST_MAX_IN_FULL),
    ]);
    const hourly = Date.parse(row.period_end!) - Date.parse(row.period_start!) <= 3_600_000;
    return composeDigestEmail(
      row.form_name ?? '',
      { start: row.period_start!, end: row.period_end!, label: hourly ? 'Hourly' : 'Daily' },
      total,
      await Promise.all(rows.map(async (s) => ({ id: s.id, createdAt: s.created_at, country: s.country, payload: await linkedPayload(s.payload, this.fileLinker) }))),
      this.config.baseUrl,
      await this.timeZoneOf(row.form_id!),
    );
  }

  /** The zone of the form's account. */
  private timeZoneOf(formId: string): Promise<string> {
    return readAtMostOnceASecond(this.zoneCache, formId, () => findAccountTimeZoneOfForm(this.db, formId).then((z) => canonicalTimeZone(z) ?? UTC));
  }

  /** The To header's list. */
  private verifiedAddresses(formId: string): Promise<string[]> {
    return readAtMostOnceASecond(this.verifiedCache, formId, () => listVerifiedAddresses(this.db, formId));
  }
}

/** A read shared by every caller for a second (a failed one is not kept); at most 1,000 forms remembered. */
function readAtMostOnceASecond<T>(cache: Map<string, { value: Promise<T>; until: number }>, key: string, read: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.value;
  if (cache.size > 1000) cache.clear();
  const value = read();
  cache.set(key, { value, until: now + 1000 });
  value.catch(() => cache.delete(key));
  return value;
}
