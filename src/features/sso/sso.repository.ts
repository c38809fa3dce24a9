import type { Executor } from '../../platform/db/database.js';
import type { SsoIdentityTable } from '../../platform/db/schema.js';

export async function findSsoIdentityRow(db: Executor, issuer: string, subject: string): Promise<SsoIdentityTable | undefined> {
  return db.selectFrom('sso_identities').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
}

export async function insertSsoIdentity(db: Executor, row: SsoIdentityTable): Promise<void> {
  // Two first sign-ins at once link once: the second finds the row the first wrote.
  await db.insertInto('sso_identities').values(row).onConflict((c) => c.columns(['issuer', 'subject']).doNothing()).execute();
}

export async function recordSsoSignIn(db: Executor, issuer: string, subject: string, email: string, at: string): Promise<void> {
  await db.updateTable('sso_identities').set({ email, last_sign_in_at: at }).where('issuer', '=', issuer).where('subject', '=', subject).execute();
}

export async function countSsoIdentitiesOfUser(db: Executor, userId: string): Promise<number> {
  const row = await db.selectFrom('sso_identities').select((eb) => eb.fn.countAll<string | number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listSsoIdentityRowsOfUser(db: Executor, userId: string): Promise<SsoIdentityTable[]> {
  return db.selectFrom('sso_identities').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('subject').execute();
}
