import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * When a user's address was shown to be theirs (`users.email_confirmed_at`, null: never). Single
 * sign-on links an identity to a user by address only once it is confirmed, so a password
 * sign-up with someone else's address can no longer receive that person's sign-in.
 *
 * Existing users are confirmed only where the database itself shows it:
 * - a user with a single sign-on identity: it was linked or made by an address the provider
 *   marked verified;
 * - a user without a password: nobody can make one from the dashboard (every sign-up sets a
 *   password), so the operator or single sign-on made them.
 * Everyone else stays unconfirmed, even if the operator made them with a password: nothing
 * stored tells them from a self-service sign-up, and a used password-reset link proves only the
 * address it was sent to, which may have changed since. An unconfirmed user loses nothing but
 * the automatic link: they sign in with their password and link single sign-on from the
 * Account page, or confirm through a password-reset link.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_confirmed_at', 'text').execute();
  await sql`update users set email_confirmed_at = created_at
    where password_hash is null or exists (select 1 from sso_identities where sso_identities.user_id = users.id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('email_confirmed_at').execute();
}
