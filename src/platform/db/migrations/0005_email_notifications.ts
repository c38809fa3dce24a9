import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Email notifications (docs/email.md), and the outbox becomes one table for every channel:
 * the submit transaction writes one `outbox` row per submission that has outbound work (hooks or
 * email), and the dispatcher expands it into hook deliveries and email messages. Queued hook
 * fan-outs are carried over.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('submission_id', 'text', (c) => c.primaryKey().references('submissions.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_created_idx').on('outbox').column('created_at').execute();
  await sql`insert into outbox (submission_id, created_at) select submission_id, created_at from hook_fanouts`.execute(db);
  await db.schema.dropTable('hook_fanouts').execute();

  await db.schema.alterTable('forms').addColumn('notify_mode', 'text', (c) => c.notNull().defaultTo('each')).execute();

  await db.schema
    .createTable('email_recipients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    // pending (verification sent) → verified → bounced (→ pending again when re-verified)
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text')
    .addColumn('token_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('bounced_at', 'text')
    .execute();
  await db.schema.createIndex('email_recipients_form_address_idx').unique().on('email_recipients').columns(['form_id', 'address']).execute();
  await db.schema.createIndex('email_recipients_token_idx').unique().on('email_recipients').column('token_hash').execute();

  await db.schema
    .createTable('email_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // submission | digest | verification | test | password_reset
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('form_id', 'text', (c) => c.references('forms.id').onDelete('cascade'))
    .addColumn('submission_id', 'text', (c) => c.references('submissions.id').onDelete('cascade'))
    .addColumn('recipient_id', 'text', (c) => c.references('email_recipients.id').onDelete('set null'))
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text')
    .addColumn('period_end', 'text')
    // JSON {subject, text, html} for messages composed when queued (verification, reset, test)
    .addColumn('content', 'text')
    // pending → sending → sent | bounced | failed | skipped
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text')
    .addColumn('claimed_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_messages_due_idx').on('email_messages').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('email_messages_form_idx').on('email_messages').columns(['form_id', 'created_at']).execute();

  await db.schema
    .createTable('email_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('email_messages.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    // sent | retry | bounced | failed
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reply', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_attempts_message_idx').on('email_attempts').columns(['message_id', 'attempted_at']).execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();

  // As migration 0003 did for the older tables: on PostgreSQL, ordering columns collate bytewise.
  if (await isPostgres(db)) {
    for (const [table, columns] of orderingColumns) {
      const alterations = columns.map((column) => sql`alter column ${sql.ref(column)} type text collate "C"`);
      await sql`alter table ${sql.table(table)} ${sql.join(alterations)}`.execute(db);
    }
  }
}

const orderingColumns: Array<[table: string, columns: string[]]> = [
  ['outbox', ['submission_id', 'created_at']],
  ['email_recipients', ['id', 'form_id', 'address']],
  ['email_messages', ['id', 'form_id', 'state', 'next_attempt_at', 'created_at']],
  ['email_attempts', ['id', 'message_id', 'attempted_at']],
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
  await db.schema.dropTable('password_resets').ifExists().execute();
  await db.schema.dropTable('email_attempts').ifExists().execute();
  await db.schema.dropTable('email_messages').ifExists().execute();
  await db.schema.dropTable('email_recipients').ifExists().execute();
  await db.schema.alterTable('forms').dropColumn('notify_mode').execute();
  await db.schema
    .createTable('hook_fanouts')
    .addColumn('submission_id', 'text', (c) => c.primaryKey().references('submissions.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.dropTable('outbox').execute();
}
