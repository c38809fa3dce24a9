import type { Executor, Trx } from '../../platform/db/database.js';
import type { EmailChangeRow } from '../../platform/db/schema.js';

/** One pending change per account: a new request replaces the last one (its link stops working). */
export async function upsertEmailChange(trx: Trx, row: EmailChangeRow): Promise<void> {
  await trx
    .insertInto('email_changes')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ new_email: row.new_email, token_hash: row.token_hash, created_at: row.created_at, expires_at: row.expires_at }))
    .execute();
}

export async function findLiveEmailChangeOfAccount(db: Executor, accountId: string, now: string): Promise<EmailChangeRow | undefined> {
  return db.selectFrom('email_changes').selectAll().where('user_id', '=', accountId).where('expires_at', '>', now).executeTakeFirst();
}

export async function findLiveEmailChangeByTokenHash(db: Executor, tokenHash: string, now: string): Promise<EmailChangeRow | undefined> {
  return db.selectFrom('email_changes').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
}

/** Takes a live change out (single use); undefined when the link is used up, replaced or expired. */
export async function consumeEmailChange(trx: Trx, tokenHash: string, now: string): Promise<EmailChangeRow | undefined> {
  const row = await findLiveEmailChangeByTokenHash(trx, tokenHash, now);
  if (!row) return undefined;
  const result = await trx.deleteFrom('email_changes').where('user_id', '=', row.user_id).where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0 ? row : undefined;
}

export async function deleteEmailChange(db: Executor, accountId: string): Promise<void> {
  await db.deleteFrom('email_changes').where('user_id', '=', accountId).execute();
}
