import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The instance admin is a user, not an account: handing an account's ownership to another member
 * must not hand over the Admin page with it. Whoever owns an account marked admin today becomes
 * the admin user; the account's flag goes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update users set is_admin = 1 where id in (
    select m.user_id from memberships m join accounts a on a.id = m.account_id
    where a.is_admin = 1 and m.role = 'owner')`.execute(db);
  await db.schema.alterTable('accounts').dropColumn('is_admin').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update accounts set is_admin = 1 where id in (
    select m.account_id from memberships m join users u on u.id = m.user_id
    where u.is_admin = 1 and m.role = 'owner')`.execute(db);
  await db.schema.alterTable('users').dropColumn('is_admin').execute();
}
