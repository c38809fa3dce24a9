import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * One attempt log for every channel of the outbox: each attempt of a hook delivery, an email or
 * an integration message is a row of `outbox_attempts`, written by the outbox with the item's
 * new state. The three logs it replaces are copied into it and dropped: `email_attempts`,
 * `integration_attempts` (a test message, which belongs to no message, is logged under its
 * integration's ID) and the hook deliveries', whose earlier attempts were in
 * `hook_delivery_attempts` and whose last one was on the `hook_deliveries` row itself (those
 * columns go: the log holds every answer).
 *
 * `item_id` names rows of several tables, so no foreign key can remove an item's attempts with
 * it: a trigger on each item table does (statement-level on PostgreSQL, where a purge deletes
 * thousands of items at once).
 */
const ITEM_TABLES = ['hook_deliveries', 'email_messages', 'integration_messages', 'integrations'];

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('outbox_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .execute();
  // IDs and times order rows: bytewise on PostgreSQL too, as migration 0003 says why.
  if (!sqlite) await sql`alter table outbox_attempts alter column id type text collate "C", alter column item_id type text collate "C", alter column attempted_at type text collate "C"`.execute(db);
  await db.schema.createIndex('outbox_attempts_item_idx').on('outbox_attempts').columns(['item_id', 'attempt']).execute();

  await sql`insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select 'ha.' || a.delivery_id || '.' || a.attempt, 'hooks', a.delivery_id, a.attempt, a.attempted_at,
      case when a.response_status between 200 and 299 then 'sent' else 'failed' end, a.response_status, a.duration_ms, a.error
    from hook_delivery_attempts a`.execute(db);
  // The last answer of each delivery, unless it was moved to the earlier attempts already (a
  // delivery queued again and not yet sent keeps its last answer on its row meanwhile).
  await sql`insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select 'ha.' || d.id || '.' || (case when d.attempts < 1 then 1 else d.attempts end), 'hooks', d.id,
      case when d.attempts < 1 then 1 else d.attempts end, d.attempted_at,
      case when d.response_status between 200 and 299 then 'sent' else 'failed' end, d.response_status, d.duration_ms, d.error
    from hook_deliveries d
    where d.attempted_at is not null
      and not exists (select 1 from hook_delivery_attempts a where a.delivery_id = d.id and a.attempt = (case when d.attempts < 1 then 1 else d.attempts end))`.execute(db);
  await sql`insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select id, 'email', message_id, row_number() over (partition by message_id order by attempted_at, id), attempted_at, outcome, null, null, reply
    from email_attempts`.execute(db);
  await sql`insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select id, 'integrations', coalesce(message_id, integration_id),
      row_number() over (partition by coalesce(message_id, integration_id) order by attempted_at, id), attempted_at, outcome, status, duration_ms, error
    from integration_attempts`.execute(db);

  await db.schema.dropTable('hook_delivery_attempts').execute();
  await db.schema.dropTable('email_attempts').execute();
  await db.schema.dropTable('integration_attempts').execute();
  for (const column of ['attempted_at', 'response_status', 'duration_ms', 'error']) {
    await db.schema.alterTable('hook_deliveries').dropColumn(column).execute();
  }

  if (sqlite) {
    for (const table of ITEM_TABLES) {
      await sql`create trigger ${sql.raw(`${table}_attempts_deleted`)} after delete on ${sql.table(table)} begin
        delete from outbox_attempts where item_id = old.id;
      end`.execute(db);
    }
    return;
  }
  await sql`create function formgate_outbox_attempts_deleted() returns trigger language plpgsql as $$
    begin
      delete from outbox_attempts where item_id in (select id from gone);
      return null;
    end $$`.execute(db);
  for (const table of ITEM_TABLES) {
    await sql`create trigger ${sql.raw(`${table}_attempts_deleted`)} after delete on ${sql.table(table)}
      referencing old table as gone for each statement execute function formgate_outbox_attempts_deleted()`.execute(db);
  }
}

/** Back to the three logs, each attempt in its channel's; hook deliveries get their last answer back on their rows. */
export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const table of ITEM_TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${table}_attempts_deleted`)}${sqlite ? sql`` : sql` on ${sql.table(table)}`}`.execute(db);
  }
  if (!sqlite) await sql`drop function if exists formgate_outbox_attempts_deleted()`.execute(db);
  for (const column of ['attempted_at', 'response_status', 'duration_ms', 'error']) {
    await db.schema.alterTable('hook_deliveries').addColumn(column, column === 'attempted_at' || column === 'error' ? 'text' : 'integer').execute();
  }
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
  await db.schema
    .createTable('email_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('email_messages.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reply', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_attempts_message_idx').on('email_attempts').columns(['message_id', 'attempted_at']).execute();
  await db.schema
    .createTable('integration_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.references('integration_messages.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('integration_attempts_integration_idx').on('integration_attempts').columns(['integration_id', 'attempted_at']).execute();
  await sql`insert into hook_delivery_attempts (delivery_id, attempt, attempted_at, response_status, duration_ms, error)
    select a.item_id, a.attempt, a.attempted_at, a.status, a.duration_ms, a.error from outbox_attempts a
    where a.channel = 'hooks' and a.attempt < (select max(b.attempt) from outbox_attempts b where b.item_id = a.item_id)`.execute(db);
  await sql`update hook_deliveries set attempted_at = a.attempted_at, response_status = a.status, duration_ms = a.duration_ms, error = a.error
    from outbox_attempts a
    where a.item_id = hook_deliveries.id and a.attempt = (select max(b.attempt) from outbox_attempts b where b.item_id = a.item_id)`.execute(db);
  await sql`insert into email_attempts (id, message_id, attempted_at, outcome, reply)
    select id, item_id, attempted_at, outcome, coalesce(error, '') from outbox_attempts where channel = 'email'`.execute(db);
  await sql`insert into integration_attempts (id, integration_id, message_id, attempted_at, outcome, status, error, duration_ms)
    select a.id, coalesce(m.integration_id, a.item_id), m.id, a.attempted_at, a.outcome, a.status, a.error, coalesce(a.duration_ms, 0)
    from outbox_attempts a left join integration_messages m on m.id = a.item_id where a.channel = 'integrations'`.execute(db);
  await db.schema.dropTable('outbox_attempts').execute();
}
