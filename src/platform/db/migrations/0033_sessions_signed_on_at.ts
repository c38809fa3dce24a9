import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * When the session's user last proved themselves at the single sign-on provider: a user without
 * a password deletes the account or changes the email only within minutes of it, where a
 * password user types the password.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('signed_on_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('signed_on_at').execute();
}
