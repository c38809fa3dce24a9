import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The submitter's side (docs/email.md, docs/api.md): per-form templates, confirmation email settings,
 * thank-you page and language; the address a confirmation went to (as a hash, for the per-address
 * guard) and why one was skipped; and the instance-wide suppression list.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('forms')
    // null: the default subject "New submission: {{form.name}}"
    .addColumn('notify_subject', 'text')
    .execute();
  await db.schema.alterTable('forms').addColumn('auto_reply_enabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('forms').addColumn('auto_reply_field', 'text', (c) => c.notNull().defaultTo('email')).execute();
  // null: the default texts of the form's language
  await db.schema.alterTable('forms').addColumn('auto_reply_subject', 'text').execute();
  await db.schema.alterTable('forms').addColumn('auto_reply_body', 'text').execute();
  await db.schema.alterTable('forms').addColumn('auto_reply_daily_limit', 'integer', (c) => c.notNull().defaultTo(200)).execute();
  await db.schema.alterTable('forms').addColumn('thanks_title', 'text').execute();
  await db.schema.alterTable('forms').addColumn('thanks_message', 'text').execute();
  await db.schema.alterTable('forms').addColumn('language', 'text', (c) => c.notNull().defaultTo('auto')).execute();

  // SHA-256 of the lower-cased address of a confirmation, for the one-per-hour guard.
  await db.schema.alterTable('email_messages').addColumn('address_hash', 'text').execute();
  // rate_limited | daily_cap | suppressed | too_late, when state is skipped
  await db.schema.alterTable('email_messages').addColumn('skip_reason', 'text').execute();
  // When a confirmation passed the guards (claimed for its first send): what the limits count.
  await db.schema.alterTable('email_messages').addColumn('admitted_at', 'text').execute();
  await db.schema
    .createIndex('email_messages_admitted_idx')
    .on('email_messages')
    .columns(['form_id', 'admitted_at'])
    .execute();

  await db.schema
    .createTable('email_suppressions')
    // SHA-256 of the lower-cased address: the list holds no readable address.
    .addColumn('address_hash', 'text', (c) => c.primaryKey())
    // unsubscribe | bounce
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  if (await isPostgres(db)) {
    await sql`alter table email_messages alter column address_hash type text collate "C", alter column admitted_at type text collate "C"`.execute(db);
    await sql`alter table email_suppressions alter column address_hash type text collate "C"`.execute(db);
  }
}

/** SQLite has no current_setting(); there the probe fails harmlessly. */
async function isPostgres(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`select current_setting('server_version_num') as v`.execute(db);
    return true;
  } catch {
    return false;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_suppressions').ifExists().execute();
  await db.schema.dropIndex('email_messages_admitted_idx').ifExists().execute();
  await db.schema.alterTable('email_messages').dropColumn('admitted_at').execute();
  await db.schema.alterTable('email_messages').dropColumn('skip_reason').execute();
  await db.schema.alterTable('email_messages').dropColumn('address_hash').execute();
  for (const column of [
    'language', 'thanks_message', 'thanks_title', 'auto_reply_daily_limit', 'auto_reply_body', 'auto_reply_subject',
    'auto_reply_field', 'auto_reply_enabled', 'notify_subject',
  ]) {
    await db.schema.alterTable('forms').dropColumn(column).execute();
  }
}
