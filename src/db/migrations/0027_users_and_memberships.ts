import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Teams: a user (a person who signs in) beside the account (plan, forms, keys, hooks), joined by
 * memberships with a role, and invitations to join an account.
 *
 * Every existing account becomes one user with the same ID, email, name and password hash, its
 * owner. Sessions gain the user they belong to (their `account_id` stays: the account the
 * dashboard acts in). Single sign-on identities, password resets and email changes belong to a
 * user from now on, so those three tables are rebuilt with `user_id` in place of `account_id`
 * (a column in a foreign key cannot be dropped on SQLite), keeping their names.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('memberships')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['account_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user_idx').on('memberships').column('user_id').execute();
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('invitations_account_idx').on('invitations').columns(['account_id', 'created_at']).execute();

  await sql`insert into users (id, email, display_name, password_hash, created_at)
    select id, email, display_name, password_hash, created_at from accounts`.execute(db);
  await sql`insert into memberships (account_id, user_id, role, created_at)
    select id, id, 'owner', created_at from accounts`.execute(db);

  await db.schema.alterTable('sessions').addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade')).execute();
  await sql`update sessions set user_id = account_id`.execute(db);
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('user_sso_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_sso_identities_pk', ['issuer', 'subject'])
    .execute();
  await sql`insert into user_sso_identities (issuer, subject, user_id, email, created_at, last_sign_in_at)
    select issuer, subject, account_id, email, created_at, last_sign_in_at from sso_identities`.execute(db);
  await db.schema.dropTable('sso_identities').execute();
  await db.schema.alterTable('user_sso_identities').renameTo('sso_identities').execute();
  await db.schema.createIndex('user_sso_identities_user_idx').on('sso_identities').column('user_id').execute();

  await db.schema
    .createTable('user_password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await sql`insert into user_password_resets (token_hash, user_id, created_at, expires_at, used_at)
    select token_hash, account_id, created_at, expires_at, used_at from password_resets`.execute(db);
  await db.schema.dropTable('password_resets').execute();
  await db.schema.alterTable('user_password_resets').renameTo('password_resets').execute();

  await db.schema
    .createTable('user_email_changes')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('new_email', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into user_email_changes (user_id, new_email, token_hash, created_at, expires_at)
    select account_id, new_email, token_hash, created_at, expires_at from email_changes`.execute(db);
  await db.schema.dropTable('email_changes').execute();
  await db.schema.alterTable('user_email_changes').renameTo('email_changes').execute();
}

export async function down(): Promise<void> {
  // Users who joined other accounts, and their roles, have no place in the old schema.
  throw new Error('migration 0027 cannot be undone: restore a backup taken before it');
}
