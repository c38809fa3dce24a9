import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The hook outbox becomes one row per submission (not one per subscription): the submit
 * transaction writes a single small row however many hooks the form has, and the dispatcher
 * turns it into per-hook deliveries when it has room to send them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('hook_fanouts')
    .addColumn('submission_id', 'text', (c) => c.primaryKey().references('submissions.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('hook_fanouts_created_idx').on('hook_fanouts').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('hook_fanouts').ifExists().execute();
}
