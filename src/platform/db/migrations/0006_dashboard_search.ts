import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Dashboard search and overview.
 *
 * - Full-text search over field values. SQLite: a contentless FTS5 table whose rowid is the
 *   submission's rowid, kept in sync by triggers inside the writing transaction; the form ID,
 *   inbox/spam and the day are indexed as words so a filtered search never walks other forms'
 *   matches nor joins rows it will not show. PostgreSQL: a GIN index
 *   on the tsvector of the payload's string and number values (an expression index: nothing to
 *   keep in sync by hand).
 * - Per form, and per form and UTC day, the number of inbox and spam submissions, kept by
 *   triggers, so the forms list and the 30-day chart read a few small rows instead of counting
 *   submissions. On PostgreSQL the counter rows are sharded by backend so concurrent submit
 *   transactions on one form never wait for each other's counter row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  await db.schema
    .createTable('form_daily_counts')
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('inbox', 'integer', (c) => c.notNull())
    .addColumn('spam', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('form_daily_counts_pk', ['form_id', 'day', 'shard'])
    .execute();
  await sql`insert into form_daily_counts (form_id, day, shard, inbox, spam)
    select form_id, substr(created_at, 1, 10), 0, sum(1 - is_spam), sum(is_spam)
    from submissions group by form_id, substr(created_at, 1, 10)`.execute(db);
  await db.schema
    .createTable('form_counts')
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('inbox', 'integer', (c) => c.notNull())
    .addColumn('spam', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('form_counts_pk', ['form_id', 'shard'])
    .execute();
  await sql`insert into form_counts (form_id, shard, inbox, spam)
    select form_id, 0, sum(1 - is_spam), sum(is_spam) from submissions group by form_id`.execute(db);

  if (sqlite) await upSqlite(db);
  else await upPostgres(db);
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  // Field values joined by spaces; arrays come out as JSON text, which the tokenizer splits.
  // A payload that is not JSON (never written by Formgate) indexes no words instead of failing.
  const body = (row: string) =>
    sql.raw(`case when json_valid(${row}.payload) then (select group_concat(value, ' ') from json_each(${row}.payload)) else '' end`);
  // The "form" column holds the row's filters as words, so a search with filters is answered by
  // the FTS5 index alone: the form ID, inbox or spam, and its UTC day, month and year
  // (`frmAbC inbox d20261123 m202611 y2026`). A date range becomes an OR of a few such words.
  const formToken = (row: string) =>
    sql.raw(`replace(${row}.form_id, '_', '') || case when ${row}.is_spam = 1 then ' spam' else ' inbox' end` +
      ` || ' d' || replace(substr(${row}.created_at, 1, 10), '-', '') || ' m' || replace(substr(${row}.created_at, 1, 7), '-', '')` +
      ` || ' y' || substr(${row}.created_at, 1, 4)`);
  await sql`create virtual table submissions_fts using fts5(form, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`.execute(db);
  await sql`insert into submissions_fts (rowid, form, body) select rowid, ${formToken('submissions')}, ${body('submissions')} from submissions`.execute(db);

  await sql`create trigger submissions_after_insert after insert on submissions begin
    insert into submissions_fts (rowid, form, body) values (new.rowid, ${formToken('new')}, ${body('new')});
    insert into form_daily_counts (form_id, day, shard, inbox, spam)
      values (new.form_id, substr(new.created_at, 1, 10), 0, 1 - new.is_spam, new.is_spam)
      on conflict (form_id, day, shard) do update set inbox = inbox + excluded.inbox, spam = spam + excluded.spam;
    insert into form_counts (form_id, shard, inbox, spam) values (new.form_id, 0, 1 - new.is_spam, new.is_spam)
      on conflict (form_id, shard) do update set inbox = inbox + excluded.inbox, spam = spam + excluded.spam;
  end`.execute(db);
  // UPDATE only: when a form is deleted its counter rows are already gone, nothing to recreate.
  await sql`create trigger submissions_after_delete after delete on submissions begin
    delete from submissions_fts where rowid = old.rowid;
    update form_daily_counts set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and day = substr(old.created_at, 1, 10) and shard = 0;
    update form_counts set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and shard = 0;
  end`.execute(db);
  await sql`create trigger submissions_after_spam_change after update of is_spam on submissions
    when old.is_spam <> new.is_spam begin
    delete from submissions_fts where rowid = old.rowid;
    insert into submissions_fts (rowid, form, body) values (new.rowid, ${formToken('new')}, ${body('new')});
    update form_daily_counts set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and day = substr(new.created_at, 1, 10) and shard = 0;
    update form_counts set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and shard = 0;
  end`.execute(db);
}

async function upPostgres(db: Kysely<any>): Promise<void> {
  // The words of a payload's string and number values. A payload that is not JSON (never written
  // by Formgate, but a damaged row must not make its UPDATE or a search fail) has none.
  await sql`create function formgate_search_vector(payload text) returns tsvector
    language plpgsql immutable parallel safe as $$
    begin
      return jsonb_to_tsvector('simple'::regconfig, payload::jsonb, '["string", "numeric"]'::jsonb);
    exception when others then
      return ''::tsvector;
    end $$`.execute(db);
  await sql`create index submissions_search_idx on submissions using gin (formgate_search_vector(payload))`.execute(db);

  // Statement-level triggers: a group-commit batch of n rows costs one upsert per (form, day).
  await sql`create function formgate_count_inserted() returns trigger language plpgsql as $$
    begin
      insert into form_daily_counts (form_id, day, shard, inbox, spam)
        select form_id, substr(created_at, 1, 10), pg_backend_pid() % 8, sum(1 - is_spam), sum(is_spam)
        from new_rows group by form_id, substr(created_at, 1, 10)
        on conflict (form_id, day, shard) do update
          set inbox = form_daily_counts.inbox + excluded.inbox, spam = form_daily_counts.spam + excluded.spam;
      insert into form_counts (form_id, shard, inbox, spam)
        select form_id, pg_backend_pid() % 8, sum(1 - is_spam), sum(is_spam) from new_rows group by form_id
        on conflict (form_id, shard) do update
          set inbox = form_counts.inbox + excluded.inbox, spam = form_counts.spam + excluded.spam;
      return null;
    end $$`.execute(db);
  await sql`create function formgate_count_deleted() returns trigger language plpgsql as $$
    declare r record;
    begin
      -- Any shard of the day may take the decrement: only the sum over shards is read.
      for r in select form_id, substr(created_at, 1, 10) as day, sum(1 - is_spam) as inbox, sum(is_spam) as spam
               from old_rows group by form_id, substr(created_at, 1, 10) loop
        update form_daily_counts set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, day, shard) = (
            select form_id, day, shard from form_daily_counts where form_id = r.form_id and day = r.day limit 1);
        update form_counts set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
  await sql`create function formgate_count_spam_changed() returns trigger language plpgsql as $$
    declare r record;
    begin
      for r in select n.form_id, substr(n.created_at, 1, 10) as day, sum(n.is_spam - o.is_spam) as moved
               from new_rows n join old_rows o on o.id = n.id
               where n.is_spam <> o.is_spam group by n.form_id, substr(n.created_at, 1, 10) loop
        update form_daily_counts set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, day, shard) = (
            select form_id, day, shard from form_daily_counts where form_id = r.form_id and day = r.day limit 1);
        update form_counts set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
  await sql`create trigger submissions_count_inserted after insert on submissions
    referencing new table as new_rows for each statement execute function formgate_count_inserted()`.execute(db);
  await sql`create trigger submissions_count_deleted after delete on submissions
    referencing old table as old_rows for each statement execute function formgate_count_deleted()`.execute(db);
  await sql`create trigger submissions_count_spam_changed after update on submissions
    referencing new table as new_rows old table as old_rows for each statement execute function formgate_count_spam_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const name of ['submissions_after_insert', 'submissions_after_delete', 'submissions_after_spam_change']) {
      await sql`drop trigger if exists ${sql.raw(name)}`.execute(db);
    }
    await sql`drop table if exists submissions_fts`.execute(db);
  } else {
    for (const name of ['submissions_count_inserted', 'submissions_count_deleted', 'submissions_count_spam_changed']) {
      await sql`drop trigger if exists ${sql.raw(name)} on submissions`.execute(db);
    }
    for (const name of ['formgate_count_inserted', 'formgate_count_deleted', 'formgate_count_spam_changed']) {
      await sql`drop function if exists ${sql.raw(name)}()`.execute(db);
    }
    await sql`drop index if exists submissions_search_idx`.execute(db);
    await sql`drop function if exists formgate_search_vector(text)`.execute(db);
  }
  await db.schema.dropTable('form_counts').ifExists().execute();
  await db.schema.dropTable('form_daily_counts').ifExists().execute();
}
