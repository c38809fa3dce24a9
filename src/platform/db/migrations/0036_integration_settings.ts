import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Integrations of services that keep the data (spreadsheets, databases, mailing lists): each
 * kind's settings as JSON, the owner-visible ones in `settings`, the write-only ones (keys,
 * tokens) in `secrets`, stored as the chat kinds' URLs and tokens are. A message's `position`
 * (its submission's time and ID) orders the messages of a kind that sends one at a time, in the
 * order the submissions arrived; the index finds an integration's earlier messages still queued.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integrations').addColumn('settings', 'text').execute();
  await db.schema.alterTable('integrations').addColumn('secrets', 'text').execute();
  await db.schema.alterTable('integration_messages').addColumn('position', 'text').execute();
  // Compared as bytes on both databases, as every ordering column of these tables is.
  if (await isPostgres(db)) await sql`alter table integration_messages alter column position type text collate "C"`.execute(db);
  await db.schema
    .createIndex('integration_messages_position_idx')
    .on('integration_messages')
    .columns(['integration_id', 'position'])
    .execute();
}

async function isPostgres(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`select current_setting('server_version_num') as v`.execute(db);
    return true;
  } catch {
    return false;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('integration_messages_position_idx').execute();
  await db.schema.alterTable('integration_messages').dropColumn('position').execute();
  await db.schema.alterTable('integrations').dropColumn('secrets').execute();
  await db.schema.alterTable('integrations').dropColumn('settings').execute();
}
