import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * 1. `instance_secrets`: random secrets every instance on one database shares (the cursor
 *    signing key), created on first use. There is no configuration variable for them.
 * 2. On PostgreSQL the ID and timestamp columns that order rows ("newest first", keyset paging,
 *    the outboxes) collate as "C": bytewise, like SQLite, whatever the database's locale. Under
 *    a linguistic collation `sub_a` sorts before `sub_B` and punctuation is nearly ignored, so tie
 *    order (and the time-ordered IDs, whose base62 digits are ordered 0-9 A-Z a-z) would differ
 *    between the two databases and between PostgreSQL servers. Their indexes are rebuilt.
 */
const orderingColumns: Array<[table: string, columns: string[]]> = [
  ['accounts', ['id', 'created_at']],
  ['api_keys', ['id', 'account_id', 'created_at']],
  ['forms', ['id', 'account_id', 'created_at']],
  ['submissions', ['id', 'form_id', 'created_at']],
  ['idempotency_keys', ['created_at']],
  ['hooks', ['id', 'account_id', 'form_id', 'created_at']],
  ['hook_deliveries', ['id', 'hook_id', 'submission_id', 'state', 'created_at']],
  ['hook_fanouts', ['submission_id', 'created_at']],
  ['sessions', ['account_id', 'created_at']],
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  if (!(await isPostgres(db))) return; // SQLite compares text bytewise (BINARY) already.
  for (const [table, columns] of orderingColumns) {
    const alterations = columns.map((column) => sql`alter column ${sql.ref(column)} type text collate "C"`);
    await sql`alter table ${sql.table(table)} ${sql.join(alterations)}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_secrets').ifExists().execute();
  if (!(await isPostgres(db))) return;
  for (const [table, columns] of orderingColumns) {
    const alterations = columns.map((column) => sql`alter column ${sql.ref(column)} type text collate "default"`);
    await sql`alter table ${sql.table(table)} ${sql.join(alterations)}`.execute(db);
  }
}

/** SQLite has no current_setting(); there the probe fails harmlessly (no transactional DDL to abort). */
async function isPostgres(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`select current_setting('server_version_num') as v`.execute(db);
    return true;
  } catch {
    return false;
  }
}
