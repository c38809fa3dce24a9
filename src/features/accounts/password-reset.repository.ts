import type { Executor, Trx } from '../../platform/db/database.js';

export async function insertPasswordReset(
  db: Executor,
  row: { token_hash: string; user_id: string; created_at: string; expires_at: string },
): Promise<void> {
  await db.insertInto('password_resets').values({ ...row, used_at: null }).execute();
}

/** Marks a live, unused token used and returns its account; undefined when there is none. */
export async function consumePasswordReset(trx: Trx, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await trx
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

export async function findLivePasswordReset(db: Executor, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('password_resets')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}

/** Ends the user's unused reset links: each was sent to an address the user no longer has. */
export async function deleteUnusedPasswordResetsOfUser(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', userId).where('used_at', 'is', null).execute();
}
