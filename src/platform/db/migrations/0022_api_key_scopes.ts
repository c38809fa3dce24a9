import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * API keys gain a scope: `read` (what the management API needs, and every key made before) or
 * `triage` (also marks submissions spam or not spam, through the MCP server).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo('read').check(sql`scope in ('read', 'triage')`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('scope').execute();
}
