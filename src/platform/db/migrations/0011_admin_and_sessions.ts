import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Required fields per form, an instance admin, disabled accounts, the device and
 * address of a session, and instance settings kept in the database (sign-up open or closed,
 * the last retention purge).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('forms')
    .addColumn('required_fields', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('disabled_at', 'text').execute();
  // Both kept no longer than the session row itself.
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
  await db.schema
    .createTable('instance_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The first account created is the instance's admin.
  await sql`update accounts set is_admin = 1 where id = (
    select id from accounts order by created_at asc, id asc limit 1)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_settings').execute();
  await db.schema.alterTable('sessions').dropColumn('ip').execute();
  await db.schema.alterTable('sessions').dropColumn('user_agent').execute();
  await db.schema.alterTable('accounts').dropColumn('disabled_at').execute();
  await db.schema.alterTable('accounts').dropColumn('is_admin').execute();
  await db.schema.alterTable('forms').dropColumn('required_fields').execute();
}
