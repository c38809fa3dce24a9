import { sql } from 'kysely';
import type { Executor, Trx } from '../../platform/db/database.js';
import type { LeaseColumn, LeasedItems, OutboxItem } from '../outbox/outbox.types.js';
import type { EmailMessageRow, EmailRecipientRow, EmailRecipientTable, NewEmailMessageRow } from '../../platform/db/schema.js';

// ---- recipients ----

export async function listRecipientRows(db: Executor, formId: string): Promise<EmailRecipientRow[]> {
  return db.selectFrom('email_recipients').selectAll().where('form_id', '=', formId).orderBy('address').execute();
}

export async function insertRecipientRow(trx: Trx, row: EmailRecipientTable): Promise<void> {
  await trx.insertInto('email_recipients').values(row).execute();
}

export async function deleteRecipientRows(trx: Trx, ids: string[]): Promise<void> {
  if (ids.length > 0) await trx.deleteFrom('email_recipients').where('id', 'in', ids).execute();
}

export async function updateRecipientRow(db: Executor, id: string, changes: Partial<EmailRecipientTable>): Promise<void> {
  await db.updateTable('email_recipients').set(changes).where('id', '=', id).execute();
}

export async function findRecipientRowByTokenHash(db: Executor, tokenHash: string): Promise<EmailRecipientRow | undefined> {
  return db.selectFrom('email_recipients').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function listVerifiedAddresses(db: Executor, formId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('email_recipients')
    .select('address')
    .where('form_id', '=', formId)
    .where('state', '=', 'verified')
    .orderBy('address')
    .execute();
  return rows.map((r) => r.address);
}

/** Forms in a digest mode with their verified recipients and those waiting for confirmation (their digests are held). */
export async function listDigestRecipients(
  db: Executor,
): Promise<Array<{ formId: string; mode: string; recipientId: string; address: string; verified: boolean }>> {
  const rows = await db
    .selectFrom('email_recipients as r')
    .innerJoin('forms as f', 'f.id', 'r.form_id')
    .select(['f.id as form_id', 'f.notify_mode', 'r.id as recipient_id', 'r.address', 'r.state'])
    .where('f.notify_mode', 'in', ['hourly', 'daily'])
    .where('r.state', 'in', ['verified', 'pending'])
    .execute();
  return rows.map((r) => ({ formId: r.form_id, mode: r.notify_mode, recipientId: r.recipient_id, address: r.address, verified: r.state === 'verified' }));
}

// ---- messages ----

export async function insertMessageRows(db: Executor, rows: NewEmailMessageRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await db.insertInto('email_messages').values(rows).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

export async function findExistingMessageIds(db: Executor, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('email_messages').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The email part of expanding the outbox: one message per submission and verified recipient of a
 * form in per-submission mode, in one INSERT … SELECT. The ID (submission and recipient) makes
 * expanding twice harmless. Returns how many it created.
 *
 * The batch's submissions are looked up by ID first (a materialized CTE): joined directly, the
 * PostgreSQL planner could start from the few forms in per-submission mode and read each one's
 * submissions through the form index, every row the form has, to keep the batch's (estimated at a
 * form's average size, so the expansion would grow dearer with every row a form gains;
 * docs/performance.md#outbound-work-in-batches).
 */
export async function insertSubmissionMessages(trx: Trx, submissionIds: string[], now: string): Promise<number> {
  if (submissionIds.length === 0) return 0;
  const result = await trx
    .with(
      (cte) => cte('batch').materialized(),
      (db) => db.selectFrom('submissions').select(['id', 'form_id']).where('id', 'in', submissionIds),
    )
    .insertInto('email_messages')
    .columns(['id', 'kind', 'form_id', 'submission_id', 'recipient_id', 'to_address', 'state', 'attempts', 'next_attempt_at', 'created_at'])
    .expression((db) =>
      db
        .selectFrom('batch as s')
        .innerJoin('forms as f', 'f.id', 's.form_id')
        .innerJoin('email_recipients as r', 'r.form_id', 's.form_id')
        .select([
          sql<string>`'sn.' || s.id || '.' || r.id`.as('id'),
          sql<string>`'submission'`.as('kind'),
          's.form_id',
          's.id as submission_id',
          'r.id as recipient_id',
          'r.address as to_address',
          // An address not yet confirmed gets its notifications once it is: held until then, not dropped.
          sql<string>`case when r.state = 'verified' then 'pending' else 'held' end`.as('state'),
          sql<number>`0`.as('attempts'),
          sql<string>`${now}`.as('next_attempt_at'),
          sql<string>`${now}`.as('created_at'),
        ])
        .where('f.notify_mode', '=', 'each')
        .where('r.state', 'in', ['verified', 'pending']),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** A claimed message with what composing it needs (without the lease's columns). */
export interface ClaimedMessageRow extends Omit<EmailMessageRow, LeaseColumn>, OutboxItem {
  form_name: string | null;
  form_notify_subject: string | null;
  form_auto_reply_subject: string | null;
  form_auto_reply_body: string | null;
  form_auto_reply_daily_limit: number | null;
  form_language: string | null;
  /** The language the submission's pages spoke (migration 0024); null for older submissions. */
  s_language?: string | null;
  recipient_state: string | null;
  s_created_at: string | null;
  s_country: string | null;
  s_payload: string | null;
}

/** What composing the messages being leased to this instance needs (in the lease's transaction). */
export async function loadLeasedMessageRows(leased: LeasedItems): Promise<ClaimedMessageRow[]> {
  return leased
    .selectFrom('email_messages as m')
    .leftJoin('forms as f', 'f.id', 'm.form_id')
    .leftJoin('email_recipients as r', 'r.id', 'm.recipient_id')
    .leftJoin('submissions as s', 's.id', 'm.submission_id')
    .select(CLAIMED_MESSAGE_COLUMNS)
    .select(CLAIMED_MESSAGE_DETAILS)
    .where('m.id', 'in', (eb) => eb.selectFrom('leased').select('leased.id'))
    .orderBy('m.next_attempt_at')
    .orderBy('m.id')
    .execute();
}

/** The message's own columns but the lease's (the return type of the load checks that none is missing). */
const CLAIMED_MESSAGE_COLUMNS = [
  'm.id',
  'm.kind',
  'm.form_id',
  'm.submission_id',
  'm.recipient_id',
  'm.to_address',
  'm.period_start',
  'm.period_end',
  'm.content',
  'm.attempts',
  'm.next_attempt_at',
  'm.created_at',
  'm.address_hash',
  'm.skip_reason',
  'm.admitted_at',
] as const;

/** What composing a claimed message needs besides the message, under ClaimedMessageRow's names. */
const CLAIMED_MESSAGE_DETAILS = [
  'f.name as form_name',
  'f.notify_subject as form_notify_subject',
  'f.auto_reply_subject as form_auto_reply_subject',
  'f.auto_reply_body as form_auto_reply_body',
  'f.auto_reply_daily_limit as form_auto_reply_daily_limit',
  'f.language as form_language',
  'r.state as recipient_state',
  's.created_at as s_created_at',
  's.country as s_country',
  's.payload as s_payload',
  's.language as s_language',
] as const;

/** The form's newest messages (their attempts are in the outbox's log). */
export async function listEmailLogRows(db: Executor, formId: string, limit: number): Promise<EmailMessageRow[]> {
  return db
    .selectFrom('email_messages')
    .selectAll()
    .where('form_id', '=', formId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

// ---- digests ----

export async function countDigestSubmissions(db: Executor, formId: string, start: string, end: string): Promise<number> {
  const row = await db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('form_id', '=', formId)
    .where('is_spam', '=', 0)
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listDigestSubmissionRows(db: Executor, formId: string, start: string, end: string, limit: number) {
  return db
    .selectFrom('submissions')
    .select(['id', 'created_at', 'country', 'payload'])
    .where('form_id', '=', formId)
    .where('is_spam', '=', 0)
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * SQL over a form id column: the form emails each submission (per-submission mode) to at least
 * one verified recipient or one waiting for confirmation (its messages are held until then).
 * Digests are queued by their own timer, not through the outbox.
 */
export function formHasPerSubmissionRecipientSql(formIdColumn: string): string {
  return `exists (select 1 from email_recipients r inner join forms f on f.id = r.form_id
    where r.form_id = ${formIdColumn} and r.state in ('verified', 'pending') and f.notify_mode = 'each')`;
}

/** A submission's emails, for the owner of `accountId` only. */
export async function listMessageRowsOfSubmission(db: Executor, accountId: string, submissionId: string): Promise<EmailMessageRow[]> {
  return db
    .selectFrom('email_messages as m')
    .innerJoin('forms as f', 'f.id', 'm.form_id')
    .selectAll('m')
    .where('m.submission_id', '=', submissionId)
    .where('f.account_id', '=', accountId)
    .orderBy('m.created_at')
    .orderBy('m.id')
    .execute();
}

/** The message, if its form is the account's. */
export async function findMessageOfAccount(db: Executor, accountId: string, messageId: string): Promise<{ id: string; kind: string } | undefined> {
  return db
    .selectFrom('email_messages as m')
    .innerJoin('forms as f', 'f.id', 'm.form_id')
    .select(['m.id', 'm.kind'])
    .where('m.id', '=', messageId)
    .where('f.account_id', '=', accountId)
    .executeTakeFirst();
}
