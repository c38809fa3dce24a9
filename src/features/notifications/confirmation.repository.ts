import { sql } from 'kysely';
import type { Dialect, Executor, Trx } from '../../platform/db/database.js';
import type { NewEmailMessageRow } from '../../platform/db/schema.js';

/** A queued submission of a form that sends confirmations, with what choosing the address needs. */
export interface ConfirmationCandidateRow {
  submission_id: string;
  form_id: string;
  s_created_at: string;
  payload: string;
  /** When the submission was released to the outbox (its arrival, or "not spam"). */
  released_at: string;
  auto_reply_field: string;
}

/** Inside the dispatcher's expand transaction: the outbox rows are still there. */
export async function listConfirmationCandidates(trx: Trx, submissionIds: string[]): Promise<ConfirmationCandidateRow[]> {
  return trx
    .selectFrom('submissions as s')
    .innerJoin('forms as f', 'f.id', 's.form_id')
    .innerJoin('outbox as o', 'o.submission_id', 's.id')
    .select(['s.id as submission_id', 's.form_id', 's.created_at as s_created_at', 's.payload', 'o.created_at as released_at', 'f.auto_reply_field'])
    .where('s.id', 'in', submissionIds)
    .where('s.is_spam', '=', 0)
    .where('f.auto_reply_enabled', '=', 1)
    .execute();
}

/** Returns how many it created (a confirmation already there is kept). */
export async function insertConfirmationRows(trx: Trx, rows: NewEmailMessageRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await trx.insertInto('email_messages').values(rows).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Advisory-lock class of the confirmation guards on PostgreSQL ("Conf"). */
const GUARD_LOCK_CLASS = 0x436f6e66;

/**
 * PostgreSQL: serializes the guard check of one form's confirmations across instances until the
 * transaction ends, so two claimers cannot both count the same free place. SQLite transactions
 * are already serialized.
 */
export async function lockConfirmationGuards(trx: Trx, dialect: Dialect, formIds: string[]): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const formId of [...formIds].sort()) {
    await sql`select pg_advisory_xact_lock(${GUARD_LOCK_CLASS}, hashtext(${formId}))`.execute(trx);
  }
}

/**
 * Confirmations of the form admitted since `since` (what the daily cap counts). Only a
 * confirmation has an admitted_at: counted from the (form_id, admitted_at) index alone.
 */
export async function countAdmittedConfirmations(trx: Trx, where: { formId: string; since: string }): Promise<number> {
  const row = await trx
    .selectFrom('email_messages')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('form_id', '=', where.formId)
    .where('admitted_at', '>=', where.since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Which of these addresses (by hash) got a confirmation of the form admitted since `since`. */
export async function findAddressesAdmittedSince(trx: Trx, where: { formId: string; since: string; addressHashes: string[] }): Promise<Set<string>> {
  const rows = await trx
    .selectFrom('email_messages')
    .select('address_hash')
    .distinct()
    .where('form_id', '=', where.formId)
    .where('kind', '=', 'confirmation')
    .where('admitted_at', '>=', where.since)
    .where('address_hash', 'in', where.addressHashes)
    .execute();
  return new Set(rows.map((r) => r.address_hash!));
}

export async function admitConfirmations(trx: Trx, ids: string[], at: string): Promise<void> {
  if (ids.length > 0) await trx.updateTable('email_messages').set({ admitted_at: at }).where('id', 'in', ids).execute();
}

// ---- suppression list ----

/** Which of these addresses (by hash) are on the suppression list. */
export async function findSuppressed(db: Executor, addressHashes: string[]): Promise<Set<string>> {
  if (addressHashes.length === 0) return new Set();
  const rows = await db.selectFrom('email_suppressions').select('address_hash').where('address_hash', 'in', addressHashes).execute();
  return new Set(rows.map((r) => r.address_hash));
}

export async function insertSuppression(db: Executor, row: { address_hash: string; reason: string; created_at: string }): Promise<void> {
  await db.insertInto('email_suppressions').values(row).onConflict((oc) => oc.column('address_hash').doNothing()).execute();
}

export async function deleteSuppression(db: Executor, addressHash: string): Promise<boolean> {
  const result = await db.deleteFrom('email_suppressions').where('address_hash', '=', addressHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function countSuppressions(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('email_suppressions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** SQL over a form id column: the form sends confirmation emails. */
export function formSendsConfirmationsSql(formIdColumn: string): string {
  return `exists (select 1 from forms fa where fa.id = ${formIdColumn} and fa.auto_reply_enabled = 1)`;
}
