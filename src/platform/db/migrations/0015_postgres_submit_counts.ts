import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * PostgreSQL only: two pieces of per-submission work leave the submit statement's triggers
 * (docs/performance.md#the-one-statement-batch).
 *
 * 1. The insert counter trigger goes: the code that inserts submissions adds them to
 *    `form_hourly_counts` and `form_counts` itself, as SQLite's has since migration 0007. The
 *    submit statement counts into a shard its caller picks, so batches written at once never
 *    wait on one another's counter rows (the trigger's `pg_backend_pid() % 8` made backends
 *    share shards, and a batch waited for the other's commit). The delete and spam-change
 *    triggers stay.
 * 2. The foreign key from submissions to forms goes: its check ran once per row (an executor
 *    started per row for `select … for key share`). The submit statement locks each form of a
 *    batch once, the same `for key share` lock, and stores only rows whose form it locked. A
 *    form's deletion still takes its submissions with it: a row trigger on forms replaces the
 *    cascade, and it waits for a batch holding the form's lock, as the cascade did.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`drop trigger submissions_count_inserted on submissions`.execute(db);
  await sql`drop function formgate_count_inserted()`.execute(db);
  await sql`alter table submissions drop constraint submissions_form_id_fkey`.execute(db);
  await sql`create function formgate_delete_form_submissions() returns trigger language plpgsql as $$
    begin
      delete from submissions where form_id = old.id;
      return null;
    end $$`.execute(db);
  await sql`create trigger forms_delete_submissions after delete on forms
    for each row execute function formgate_delete_form_submissions()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`drop trigger forms_delete_submissions on forms`.execute(db);
  await sql`drop function formgate_delete_form_submissions()`.execute(db);
  await sql`alter table submissions add constraint submissions_form_id_fkey foreign key (form_id) references forms (id) on delete cascade`.execute(db);
  // As migration 0013 left it.
  await sql`create function formgate_count_inserted() returns trigger language plpgsql as $$
    begin
      insert into form_hourly_counts (form_id, hour, shard, inbox, spam)
        select form_id, substr(created_at, 1, 13), pg_backend_pid() % 8, sum(1 - is_spam), sum(is_spam)
        from new_rows group by form_id, substr(created_at, 1, 13)
        on conflict (form_id, hour, shard) do update
          set inbox = form_hourly_counts.inbox + excluded.inbox, spam = form_hourly_counts.spam + excluded.spam;
      insert into form_counts (form_id, shard, inbox, spam)
        select form_id, pg_backend_pid() % 8, sum(1 - is_spam), sum(is_spam) from new_rows group by form_id
        on conflict (form_id, shard) do update
          set inbox = form_counts.inbox + excluded.inbox, spam = form_counts.spam + excluded.spam;
      return null;
    end $$`.execute(db);
  await sql`create trigger submissions_count_inserted after insert on submissions
    referencing new table as new_rows for each statement execute function formgate_count_inserted()`.execute(db);
}
