import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Deliveries that can be sent again (docs/api.md, redeliver), leased like every channel's items:
 * a hook delivery counts its attempts (each one it had is counted: one if it was attempted) and
 * carries the instance that claimed it, as email and integration messages do. A hook's test
 * deliveries ("Send test") get a log of their own beside the submissions' deliveries: they belong
 * to no submission.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('hook_deliveries').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('hook_deliveries').addColumn('claimed_by', 'text').execute();
  await sql`update hook_deliveries set attempts = 1 where attempted_at is not null`.execute(db);
  await db.schema
    .createTable('hook_test_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hook_id', 'text', (c) => c.notNull().references('hooks.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('hook_test_deliveries_hook_idx').on('hook_test_deliveries').columns(['hook_id', 'attempted_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('hook_test_deliveries').ifExists().execute();
  await db.schema.alterTable('hook_deliveries').dropColumn('claimed_by').execute();
  await db.schema.alterTable('hook_deliveries').dropColumn('attempts').execute();
}
