import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * SQLite: the per-form and per-day counters are no longer bumped by a row trigger (two upserts
 * per inserted row, ~30% of a group-commit batch's cost) but once per form and day per batch by
 * the code that inserts submissions, in the same transaction. The insert trigger keeps the
 * search index only; the delete and spam-change triggers are unchanged. PostgreSQL already counts
 * per statement with a statement-level trigger: nothing changes there.
 */
const formToken = (row: string) =>
  sql.raw(
    `replace(${row}.form_id, '_', '') || case when ${row}.is_spam = 1 then ' spam' else ' inbox' end` +
      ` || ' d' || replace(substr(${row}.created_at, 1, 10), '-', '') || ' m' || replace(substr(${row}.created_at, 1, 7), '-', '')` +
      ` || ' y' || substr(${row}.created_at, 1, 4)`,
  );
const body = (row: string) =>
  sql.raw(`case when json_valid(${row}.payload) then (select group_concat(value, ' ') from json_each(${row}.payload)) else '' end`);

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`drop trigger submissions_after_insert`.execute(db);
  await sql`create trigger submissions_after_insert after insert on submissions begin
    insert into submissions_fts (rowid, form, body) values (new.rowid, ${formToken('new')}, ${body('new')});
  end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`drop trigger submissions_after_insert`.execute(db);
  await sql`create trigger submissions_after_insert after insert on submissions begin
    insert into submissions_fts (rowid, form, body) values (new.rowid, ${formToken('new')}, ${body('new')});
    insert into form_daily_counts (form_id, day, shard, inbox, spam)
      values (new.form_id, substr(new.created_at, 1, 10), 0, 1 - new.is_spam, new.is_spam)
      on conflict (form_id, day, shard) do update set inbox = inbox + excluded.inbox, spam = spam + excluded.spam;
    insert into form_counts (form_id, shard, inbox, spam) values (new.form_id, 0, 1 - new.is_spam, new.is_spam)
      on conflict (form_id, shard) do update set inbox = inbox + excluded.inbox, spam = spam + excluded.spam;
  end`.execute(db);
}
