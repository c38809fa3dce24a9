import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * A hook delivery's earlier attempts. `hook_deliveries` holds the last attempt's answer; when the
 * owner sends a delivery again, that answer moves here first, so the log keeps every attempt
 * while the automatic send writes nothing more than before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('hook_delivery_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('hook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('hook_delivery_attempts_pk', ['delivery_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('hook_delivery_attempts').execute();
}
