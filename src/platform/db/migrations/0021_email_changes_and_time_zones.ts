import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * - `email_changes`: an account's requested new email, waiting for its link to be opened (one per
 *   account; a new request replaces it). The email changes only then.
 * - `accounts.time_zone`: the IANA zone the account reads times in (dashboard and emails).
 * - Notifications held for a recipient not yet confirmed are found by recipient when it is.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('email_changes')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('new_email', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('accounts').addColumn('time_zone', 'text').execute();
  await db.schema.createIndex('email_messages_recipient_state_idx').on('email_messages').columns(['recipient_id', 'state']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('email_messages_recipient_state_idx').execute();
  await db.schema.alterTable('accounts').dropColumn('time_zone').execute();
  await db.schema.dropTable('email_changes').execute();
}
