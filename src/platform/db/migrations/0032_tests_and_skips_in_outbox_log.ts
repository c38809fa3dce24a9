import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The outbox's attempt log holds every outcome: the owner's test sends and the skips too.
 *
 * - A hook's "Send test" was a row of `hook_test_deliveries`; it is logged in `outbox_attempts`
 *   under the hook's ID, as an integration's test message is under the integration's, and an
 *   email recipient's under the recipient's. The table is copied into the log and dropped.
 * - An item skipped (a recipient no longer verified, a confirmation's guard, an integration turned
 *   off) had its state changed and, for email, its reason in `skip_reason`, with no row in the
 *   log. Each gets the row it now gets: outcome `skipped`, its reason as the error, counted as the
 *   item's next attempt.
 * - Hooks and email recipients remove the attempts logged under their ID with them, by the same
 *   trigger as the item tables of migration 0029.
 */
const SUBJECT_TABLES = ['hooks', 'email_recipients'];

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await sql`insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select 'ht.' || id, 'hooks', hook_id, row_number() over (partition by hook_id order by attempted_at, id), attempted_at,
      case when response_status between 200 and 299 then 'sent' else 'failed' end, response_status, duration_ms, error
    from hook_test_deliveries`.execute(db);
  await db.schema.dropTable('hook_test_deliveries').execute();

  await sql`insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select 'sk.' || m.id, 'email', m.id, m.attempts + 1, m.next_attempt_at, 'skipped', null, null,
      coalesce(m.skip_reason, 'recipient_not_verified')
    from email_messages m
    where m.state = 'skipped' and not exists (select 1 from outbox_attempts a where a.item_id = m.id and a.outcome = 'skipped')`.execute(db);
  await sql`update email_messages set attempts = attempts + 1
    where state = 'skipped' and exists (select 1 from outbox_attempts a where a.id = 'sk.' || email_messages.id)`.execute(db);
  await sql`insert into outbox_attempts (id, channel, item_id, attempt, attempted_at, outcome, status, duration_ms, error)
    select 'sk.' || m.id, 'integrations', m.id, m.attempts + 1, m.next_attempt_at, 'skipped', null, null,
      coalesce(i.disabled_reason, 'the integration is turned off')
    from integration_messages m inner join integrations i on i.id = m.integration_id
    where m.state = 'skipped' and not exists (select 1 from outbox_attempts a where a.item_id = m.id and a.outcome = 'skipped')`.execute(db);
  await sql`update integration_messages set attempts = attempts + 1
    where state = 'skipped' and exists (select 1 from outbox_attempts a where a.id = 'sk.' || integration_messages.id)`.execute(db);

  for (const table of SUBJECT_TABLES) {
    if (sqlite) {
      await sql`create trigger ${sql.raw(`${table}_attempts_deleted`)} after delete on ${sql.table(table)} begin
        delete from outbox_attempts where item_id = old.id;
      end`.execute(db);
    } else {
      // The function migration 0029 made for the item tables.
      await sql`create trigger ${sql.raw(`${table}_attempts_deleted`)} after delete on ${sql.table(table)}
        referencing old table as gone for each statement execute function formgate_outbox_attempts_deleted()`.execute(db);
    }
  }
}

/** Hook test sends back in their table, email's skips back in skip_reason, no triggers on the subjects; email recipients' test sends are lost. */
export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const table of SUBJECT_TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${table}_attempts_deleted`)}${sqlite ? sql`` : sql` on ${sql.table(table)}`}`.execute(db);
  }
  // Email skips go back to skip_reason and out of the log; integrations logged their skips before.
  await sql`update email_messages
    set skip_reason = coalesce(skip_reason, (select a.error from outbox_attempts a where a.item_id = email_messages.id and a.outcome = 'skipped' order by a.attempt desc limit 1)),
      attempts = attempts - (select count(*) from outbox_attempts a where a.item_id = email_messages.id and a.outcome = 'skipped')
    where exists (select 1 from outbox_attempts a where a.item_id = email_messages.id and a.outcome = 'skipped')`.execute(db);
  await sql`delete from outbox_attempts where channel = 'email' and outcome = 'skipped'`.execute(db);
  await sql`update integration_messages set attempts = attempts - 1
    where exists (select 1 from outbox_attempts a where a.id = 'sk.' || integration_messages.id)`.execute(db);
  await sql`delete from outbox_attempts where channel = 'integrations' and id like 'sk.%'`.execute(db);

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
  await sql`insert into hook_test_deliveries (id, hook_id, attempted_at, response_status, duration_ms, error)
    select a.id, a.item_id, a.attempted_at, a.status, coalesce(a.duration_ms, 0), a.error
    from outbox_attempts a inner join hooks h on h.id = a.item_id`.execute(db);
  await sql`delete from outbox_attempts where item_id in (select id from hooks) or item_id in (select id from email_recipients)`.execute(db);
}
