import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Single sign-on: an OpenID Connect identity (the provider's issuer and the user's `sub`) linked
 * to the account it signs in to. The email is the one the provider last vouched for.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('sso_identities_account_idx').on('sso_identities').column('account_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sso_identities').execute();
}
