import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The 30-day chart counts days in the viewer's time zone (docs/dashboard.md), whose days do not
 * start at UTC midnight: the per-day counters of migration 0006 become per UTC hour
 * (`form_hourly_counts.hour` = `YYYY-MM-DDTHH`), which any zone's days are made of (zones a
 * half or quarter hour off have the part of one hour added from the rows themselves). Same
 * maintenance as before: SQLite's insert path counts per batch (migration 0007), its delete and
 * spam-count triggers (migration 0012) and PostgreSQL's statement-level triggers keep the counts.
 */
const hourOf = (row: string) => sql.raw(`substr(${row}.created_at, 1, 13)`);
const dayOf = (row: string) => sql.raw(`substr(${row}.created_at, 1, 10)`);

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('form_hourly_counts')
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('inbox', 'integer', (c) => c.notNull())
    .addColumn('spam', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('form_hourly_counts_pk', ['form_id', 'hour', 'shard'])
    .execute();
  await sql`insert into form_hourly_counts (form_id, hour, shard, inbox, spam)
    select form_id, ${hourOf('submissions')}, 0, sum(1 - is_spam), sum(is_spam)
    from submissions group by form_id, ${hourOf('submissions')}`.execute(db);
  if (sqlite) await sqliteCounterTriggers(db, 'form_hourly_counts', 'hour', hourOf);
  else await postgresCounterFunctions(db, 'form_hourly_counts', 'hour', 13);
  await db.schema.dropTable('form_daily_counts').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
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
    select form_id, substr(hour, 1, 10), shard, sum(inbox), sum(spam) from form_hourly_counts group by form_id, substr(hour, 1, 10), shard`.execute(db);
  if (sqlite) await sqliteCounterTriggers(db, 'form_daily_counts', 'day', dayOf);
  else await postgresCounterFunctions(db, 'form_daily_counts', 'day', 10);
  await db.schema.dropTable('form_hourly_counts').execute();
}

/**
 * SQLite's delete trigger (search index, its watermark and the counters, as migration 0012 left
 * it) and spam-count trigger, keyed by `column`.
 */
async function sqliteCounterTriggers(db: Kysely<any>, table: string, column: string, key: (row: string) => ReturnType<typeof sql.raw>): Promise<void> {
  const t = sql.raw(table);
  const c = sql.raw(column);
  await sql`drop trigger submissions_after_delete`.execute(db);
  await sql`create trigger submissions_after_delete after delete on submissions begin
    delete from submissions_fts where rowid = old.rowid;
    update submissions_fts_watermark set last_rowid = (select coalesce(max(rowid), 0) from submissions)
      where last_rowid > (select coalesce(max(rowid), 0) from submissions);
    update ${t} set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and ${c} = ${key('old')} and shard = 0;
    update form_counts set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and shard = 0;
  end`.execute(db);
  await sql`drop trigger submissions_after_spam_count_change`.execute(db);
  await sql`create trigger submissions_after_spam_count_change after update of is_spam on submissions
    when old.is_spam <> new.is_spam begin
    update ${t} set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and ${c} = ${key('new')} and shard = 0;
    update form_counts set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and shard = 0;
  end`.execute(db);
}

/** PostgreSQL's statement-level counting functions (the triggers calling them stay). */
async function postgresCounterFunctions(db: Kysely<any>, table: string, column: string, keyLength: number): Promise<void> {
  const t = sql.raw(table);
  const c = sql.raw(column);
  const key = (row: string) => sql.raw(`substr(${row}created_at, 1, ${keyLength})`);
  await sql`create or replace function formgate_count_inserted() returns trigger language plpgsql as $$
    begin
      insert into ${t} (form_id, ${c}, shard, inbox, spam)
        select form_id, ${key('')}, pg_backend_pid() % 8, sum(1 - is_spam), sum(is_spam)
        from new_rows group by form_id, ${key('')}
        on conflict (form_id, ${c}, shard) do update
          set inbox = ${t}.inbox + excluded.inbox, spam = ${t}.spam + excluded.spam;
      insert into form_counts (form_id, shard, inbox, spam)
        select form_id, pg_backend_pid() % 8, sum(1 - is_spam), sum(is_spam) from new_rows group by form_id
        on conflict (form_id, shard) do update
          set inbox = form_counts.inbox + excluded.inbox, spam = form_counts.spam + excluded.spam;
      return null;
    end $$`.execute(db);
  await sql`create or replace function formgate_count_deleted() returns trigger language plpgsql as $$
    declare r record;
    begin
      -- Any shard of the key may take the decrement: only the sum over shards is read.
      for r in select form_id, ${key('')} as k, sum(1 - is_spam) as inbox, sum(is_spam) as spam
               from old_rows group by form_id, ${key('')} loop
        update ${t} set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, ${c}, shard) = (
            select form_id, ${c}, shard from ${t} where form_id = r.form_id and ${c} = r.k limit 1);
        update form_counts set inbox = inbox - r.inbox, spam = spam - r.spam
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
  await sql`create or replace function formgate_count_spam_changed() returns trigger language plpgsql as $$
    declare r record;
    begin
      for r in select n.form_id, ${key('n.')} as k, sum(n.is_spam - o.is_spam) as moved
               from new_rows n join old_rows o on o.id = n.id
               where n.is_spam <> o.is_spam group by n.form_id, ${key('n.')} loop
        update ${t} set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, ${c}, shard) = (
            select form_id, ${c}, shard from ${t} where form_id = r.form_id and ${c} = r.k limit 1);
        update form_counts set inbox = inbox - r.moved, spam = spam + r.moved
          where (form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1);
      end loop;
      return null;
    end $$`.execute(db);
}
