import type { Executor } from '../../platform/db/database.js';
import type { EmailRecipientRow } from '../../platform/db/schema.js';

// A recipient across the account's forms: verified once for all of them, and what was held for
// it while it waited for confirmation.

/** Which of these addresses are verified recipients of any form of the account. */
export async function findAccountVerifiedAddresses(db: Executor, accountId: string, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db
    .selectFrom('email_recipients as r')
    .innerJoin('forms as f', 'f.id', 'r.form_id')
    .select('r.address')
    .distinct()
    .where('f.account_id', '=', accountId)
    .where('r.state', '=', 'verified')
    .where('r.address', 'in', addresses)
    .execute();
  return new Set(rows.map((r) => r.address));
}

/** The address's pending rows on every form of the account (one confirmation confirms them all). */
export async function listPendingRecipientRowsOfAccount(db: Executor, accountId: string, address: string): Promise<EmailRecipientRow[]> {
  return db
    .selectFrom('email_recipients as r')
    .innerJoin('forms as f', 'f.id', 'r.form_id')
    .selectAll('r')
    .where('f.account_id', '=', accountId)
    .where('r.address', '=', address)
    .where('r.state', '<>', 'verified')
    .execute();
}

export async function findFormAccountId(db: Executor, formId: string): Promise<string | undefined> {
  return (await db.selectFrom('forms').select('account_id').where('id', '=', formId).executeTakeFirst())?.account_id;
}

/**
 * Hands what was held for these recipients while they were unconfirmed to the outbox, due now:
 * sent once they are verified, skipped when they are being removed. Returns how many.
 */
export async function releaseHeldMessages(db: Executor, recipientIds: string[], now: string): Promise<number> {
  if (recipientIds.length === 0) return 0;
  const result = await db
    .updateTable('email_messages')
    .set({ state: 'pending', next_attempt_at: now })
    .where('recipient_id', 'in', recipientIds)
    .where('state', '=', 'held')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The zone the form's account reads times in (null: not known yet). */
export async function findAccountTimeZoneOfForm(db: Executor, formId: string): Promise<string | null> {
  const row = await db
    .selectFrom('forms as f')
    .innerJoin('accounts as a', 'a.id', 'f.account_id')
    .select('a.time_zone')
    .where('f.id', '=', formId)
    .executeTakeFirst();
  return row?.time_zone ?? null;
}

/** A recipient with its form's name, for a test message. */
export async function findTestRecipient(db: Executor, recipientId: string): Promise<{ address: string; state: string; formName: string } | undefined> {
  const row = await db
    .selectFrom('email_recipients as r')
    .innerJoin('forms as f', 'f.id', 'r.form_id')
    .select(['r.address', 'r.state', 'f.name'])
    .where('r.id', '=', recipientId)
    .executeTakeFirst();
  return row && { address: row.address, state: row.state, formName: row.name };
}
