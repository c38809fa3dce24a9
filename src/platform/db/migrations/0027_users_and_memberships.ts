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

/**
 * Back to one person per account: identities, resets and email changes of users who own no
 * account of the same ID (they joined by invitation) have no place there and are dropped.
 */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('csrf_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .execute();
  await sql`insert into account_sessions (id, account_id, csrf_secret, created_at, expires_at, user_agent, ip)
    select id, account_id, csrf_secret, created_at, expires_at, user_agent, ip from sessions where user_id = account_id`.execute(db);
  await db.schema.dropTable('sessions').execute();
  await db.schema.alterTable('account_sessions').renameTo('sessions').execute();
  await db.schema.createIndex('sessions_account_idx').on('sessions').column('account_id').execute();

  await db.schema
    .createTable('account_sso_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_identities_pk', ['issuer', 'subject'])
    .execute();
  await sql`insert into account_sso_identities (issuer, subject, account_id, email, created_at, last_sign_in_at)
    select issuer, subject, user_id, email, created_at, last_sign_in_at from sso_identities where user_id in (select id from accounts)`.execute(db);
  await db.schema.dropTable('sso_identities').execute();
  await db.schema.alterTable('account_sso_identities').renameTo('sso_identities').execute();
  await db.schema.createIndex('sso_identities_account_idx').on('sso_identities').column('account_id').execute();

  await db.schema
    .createTable('account_password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await sql`insert into account_password_resets (token_hash, account_id, created_at, expires_at, used_at)
    select token_hash, user_id, created_at, expires_at, used_at from password_resets where user_id in (select id from accounts)`.execute(db);
  await db.schema.dropTable('password_resets').execute();
  await db.schema.alterTable('account_password_resets').renameTo('password_resets').execute();

  await db.schema
    .createTable('account_email_changes')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('new_email', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into account_email_changes (account_id, new_email, token_hash, created_at, expires_at)
    select user_id, new_email, token_hash, created_at, expires_at from email_changes where user_id in (select id from accounts)`.execute(db);
  await db.schema.dropTable('email_changes').execute();
  await db.schema.alterTable('account_email_changes').renameTo('email_changes').execute();

  await db.schema.dropTable('invitations').execute();
  await db.schema.dropTable('memberships').execute();
  await db.schema.dropTable('users').execute();
}
