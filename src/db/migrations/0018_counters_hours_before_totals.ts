import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * PostgreSQL only: the delete and spam-change triggers (migration 0013) updated, for each (form,
 * hour) of a statement, the hour's counter row and then the form's total. A deletion or a mark
 * spanning several hours thus held a total while it went for the next hour's row, and a submit
 * statement (migration 0015: its hourly rows, then its totals) holding that hour's row and waiting
 * for the total closed a cycle that PostgreSQL broke by rolling one of the two back. Now both
 * triggers update every hourly row first and the totals after, each in key order: the submit
 * statement's order, so no cycle forms. SQLite has one writer at a time and keeps its triggers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`create or replace function formgate_count_deleted() returns trigger language plpgsql as $$
    declare r record;
    begin
      -- Any shard of the key may take the decrement: only the sum over shards is read.
      for r in select form_id, substr(created_at, 1, 13) as k, sum(1 - is_spam) as inbox, sum(is_spam) as spam
               from old_rows group by form_id, substr(created_at, 1, 13) order by form_id, k loop
        update form_hourly_counts set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, hour, shard) = (
            select form_id, hour, shard from form_hourly_counts where form_id = r.form_id and hour = r.k limit 1);
      end loop;
      for r in select form_id, sum(1 - is_spam) as inbox, sum(is_spam) as spam
               from old_rows group by form_id order by form_id loop
        update form_counts set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
  await sql`create or replace function formgate_count_spam_changed() returns trigger language plpgsql as $$
    declare r record;
    begin
      for r in select n.form_id, substr(n.created_at, 1, 13) as k, sum(n.is_spam - o.is_spam) as moved
               from new_rows n join old_rows o on o.id = n.id
               where n.is_spam <> o.is_spam group by n.form_id, substr(n.created_at, 1, 13) order by n.form_id, k loop
        update form_hourly_counts set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, hour, shard) = (
            select form_id, hour, shard from form_hourly_counts where form_id = r.form_id and hour = r.k limit 1);
      end loop;
      for r in select n.form_id, sum(n.is_spam - o.is_spam) as moved
               from new_rows n join old_rows o on o.id = n.id
               where n.is_spam <> o.is_spam group by n.form_id order by n.form_id loop
        update form_counts set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
}

/** Back to migration 0013's functions: each hour's row, then the total, hour by hour. */
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`create or replace function formgate_count_deleted() returns trigger language plpgsql as $$
    declare r record;
    begin
      for r in select form_id, substr(created_at, 1, 13) as k, sum(1 - is_spam) as inbox, sum(is_spam) as spam
               from old_rows group by form_id, substr(created_at, 1, 13) loop
        update form_hourly_counts set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, hour, shard) = (
            select form_id, hour, shard from form_hourly_counts where form_id = r.form_id and hour = r.k limit 1);
        update form_counts set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
  await sql`create or replace function formgate_count_spam_changed() returns trigger language plpgsql as $$
    declare r record;
    begin
      for r in select n.form_id, substr(n.created_at, 1, 13) as k, sum(n.is_spam - o.is_spam) as moved
               from new_rows n join old_rows o on o.id = n.id
               where n.is_spam <> o.is_spam group by n.form_id, substr(n.created_at, 1, 13) loop
        update form_hourly_counts set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, hour, shard) = (
            select form_id, hour, shard from form_hourly_counts where form_id = r.form_id and hour = r.k limit 1);
        update form_counts set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
}
