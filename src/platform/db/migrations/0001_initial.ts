import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped, add a new one. Imports no app code.
// Types are limited to text/integer so the same migration runs on SQLite and PostgreSQL.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('plan_id', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('forms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('access_key', 'text')
    .addColumn('require_bot_check', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('turnstile_secret', 'text')
    .addColumn('success_url', 'text')
    .addColumn('error_url', 'text')
    .addColumn('allowed_redirect_hosts', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('forms_account_newest_idx')
    .on('forms')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_spam', 'integer', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .addColumn('referer', 'text', (c) => c.notNull())
    .execute();
  // Keyset paging "newest first" is a backward range scan of this index.
  await db.schema
    .createIndex('submissions_form_newest_idx')
    .on('submissions')
    .columns(['form_id', 'created_at', 'id'])
    .execute();
  // The dashboard lists spam and non-spam apart.
  await db.schema
    .createIndex('submissions_form_spam_newest_idx')
    .on('submissions')
    .columns(['form_id', 'is_spam', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('form_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('submission_id', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['form_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('hooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('hooks_form_idx').on('hooks').column('form_id').execute();
  await db.schema
    .createIndex('hooks_account_newest_idx')
    .on('hooks')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('hook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hook_id', 'text', (c) => c.notNull().references('hooks.id').onDelete('cascade'))
    .addColumn('submission_id', 'text', (c) => c.notNull().references('submissions.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text')
    .addColumn('attempted_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('hook_deliveries_state_idx')
    .on('hook_deliveries')
    .columns(['state', 'created_at'])
    .execute();
  await db.schema
    .createIndex('hook_deliveries_hook_idx')
    .on('hook_deliveries')
    .columns(['hook_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('csrf_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_account_idx').on('sessions').column('account_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'sessions',
    'hook_deliveries',
    'hooks',
    'idempotency_keys',
    'submissions',
    'forms',
    'api_keys',
    'accounts',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
