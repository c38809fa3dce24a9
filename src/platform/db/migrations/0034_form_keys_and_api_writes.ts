import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Configuration as code and the write API:
 * - `forms.config_key`: the stable name a configuration file gives a form (unique per account;
 *   null for forms no file names), so that applying the file finds the same form again.
 * - `forms.revision` and `integrations.revision`: counted up by every change, part of the
 *   resource's ETag, so that a change the resource does not show (a new secret) still makes a
 *   writer holding the old ETag start again.
 * - API keys gain the scope `manage` (writes through the API). SQLite cannot change a column's
 *   CHECK in place: the column is copied into a new one with the wider check.
 * - `api_idempotency_keys`: the first answer to each write sent with an Idempotency-Key, per
 *   API key, replayed to repeats for 24 hours.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('forms').addColumn('config_key', 'text').execute();
  await db.schema.alterTable('forms').addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('forms_account_config_key_idx').on('forms').columns(['account_id', 'config_key']).unique().execute();
  await db.schema.alterTable('integrations').addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .alterTable('api_keys')
    .addColumn('scope_new', 'text', (c) => c.notNull().defaultTo('read').check(sql`scope_new in ('read', 'triage', 'manage')`))
    .execute();
  await sql`update api_keys set scope_new = scope`.execute(db);
  await db.schema.alterTable('api_keys').dropColumn('scope').execute();
  await db.schema.alterTable('api_keys').renameColumn('scope_new', 'scope').execute();

  await db.schema
    .createTable('api_idempotency_keys')
    .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    // Method, path and body: the same key with another request is refused, not replayed.
    .addColumn('request_hash', 'text', (c) => c.notNull())
    // pending while the first request runs; done once its answer is stored.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_idempotency_keys_pk', ['api_key_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('api_idempotency_keys_created_idx').on('api_idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_idempotency_keys').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('scope_old', 'text', (c) => c.notNull().defaultTo('read').check(sql`scope_old in ('read', 'triage')`))
    .execute();
  // A manage key falls back to reading: the older code knows no writes.
  await sql`update api_keys set scope_old = case when scope = 'triage' then 'triage' else 'read' end`.execute(db);
  await db.schema.alterTable('api_keys').dropColumn('scope').execute();
  await db.schema.alterTable('api_keys').renameColumn('scope_old', 'scope').execute();
  await db.schema.alterTable('integrations').dropColumn('revision').execute();
  await db.schema.dropIndex('forms_account_config_key_idx').execute();
  await db.schema.alterTable('forms').dropColumn('revision').execute();
  await db.schema.alterTable('forms').dropColumn('config_key').execute();
}
