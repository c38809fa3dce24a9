import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Integrations (docs/integrations.md): chat and push destinations per form, the messages queued
 * for them (one per integration and submission, retried), and every attempt. Webhook URLs and
 * tokens are stored as hook secrets are (readable by the server, never shown again after they
 * are set).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    // slack | discord | telegram | teams | ntfy
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    // Secrets: the webhook or topic URL, the bot or access token.
    .addColumn('url', 'text')
    .addColumn('token', 'text')
    .addColumn('chat_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('integrations_form_idx').on('integrations').columns(['form_id', 'created_at']).execute();

  await db.schema
    .createTable('integration_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('submission_id', 'text', (c) => c.notNull().references('submissions.id').onDelete('cascade'))
    // pending → sending → sent | failed | skipped
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text')
    .addColumn('claimed_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One message per integration and submission, however often the submission is released.
  await db.schema
    .createIndex('integration_messages_once_idx')
    .unique()
    .on('integration_messages')
    .columns(['integration_id', 'submission_id'])
    .execute();
  await db.schema.createIndex('integration_messages_due_idx').on('integration_messages').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('integration_messages_submission_idx').on('integration_messages').column('submission_id').execute();

  await db.schema
    .createTable('integration_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    // null for a test message
    .addColumn('message_id', 'text', (c) => c.references('integration_messages.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    // sent | retry | failed | disabled
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('integration_attempts_integration_idx')
    .on('integration_attempts')
    .columns(['integration_id', 'attempted_at'])
    .execute();
  await db.schema.createIndex('integration_attempts_message_idx').on('integration_attempts').column('message_id').execute();

  // As migrations 0003 and 0005 did: on PostgreSQL, ordering columns collate bytewise.
  if (await isPostgres(db)) {
    for (const [table, columns] of orderingColumns) {
      const alterations = columns.map((column) => sql`alter column ${sql.ref(column)} type text collate "C"`);
      await sql`alter table ${sql.table(table)} ${sql.join(alterations)}`.execute(db);
    }
  }
}

const orderingColumns: Array<[table: string, columns: string[]]> = [
  ['integrations', ['id', 'form_id', 'created_at']],
  ['integration_messages', ['id', 'integration_id', 'submission_id', 'state', 'next_attempt_at', 'created_at']],
  ['integration_attempts', ['id', 'integration_id', 'message_id', 'attempted_at']],
];

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
  await db.schema.dropTable('integration_attempts').ifExists().execute();
  await db.schema.dropTable('integration_messages').ifExists().execute();
  await db.schema.dropTable('integrations').ifExists().execute();
}
