import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * SQLite: a new submission is no longer added to the FTS5 index by its insert trigger, inside
 * the submit transaction, but by a background indexer shortly after (and before any search), in
 * batches of up to a thousand rows. FTS5 writes a new index segment per transaction: fed by
 * group-commit batches of ~30 rows it costs most of the submit transaction, fed a thousand rows
 * at a time a small fraction of that (docs/performance.md#search-indexing-after-the-commit). The
 * insert trigger is gone (even noting each new row in a table of its own costs 20% of the insert):
 * `submissions_fts_watermark` holds the highest rowid indexed, and every row above it is waiting.
 * Two rules keep each row indexed exactly once: a spam change re-indexes a row only if it is
 * already indexed, and a delete that leaves the watermark above the highest remaining rowid
 * lowers it to that rowid, because SQLite gives the next insert max(rowid) + 1. PostgreSQL's GIN
 * index keeps its own pending list: nothing changes there.
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
  await sql`create table submissions_fts_watermark (id integer primary key check (id = 1), last_rowid integer not null)`.execute(db);
  // Every row there is now was indexed by the old trigger.
  await sql`insert into submissions_fts_watermark (id, last_rowid) select 1, coalesce(max(rowid), 0) from submissions`.execute(db);
  await sql`drop trigger submissions_after_insert`.execute(db);
  await sql`drop trigger submissions_after_delete`.execute(db);
  await sql`create trigger submissions_after_delete after delete on submissions begin
    delete from submissions_fts where rowid = old.rowid;
    update submissions_fts_watermark set last_rowid = (select coalesce(max(rowid), 0) from submissions)
      where last_rowid > (select coalesce(max(rowid), 0) from submissions);
    update form_daily_counts set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and day = substr(old.created_at, 1, 10) and shard = 0;
    update form_counts set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and shard = 0;
  end`.execute(db);
  await sql`drop trigger submissions_after_spam_change`.execute(db);
  await sql`create trigger submissions_after_spam_change after update of is_spam on submissions
    when old.is_spam <> new.is_spam and new.rowid <= (select last_rowid from submissions_fts_watermark) begin
    delete from submissions_fts where rowid = old.rowid;
    insert into submissions_fts (rowid, form, body) values (new.rowid, ${formToken('new')}, ${body('new')});
  end`.execute(db);
  await sql`create trigger submissions_after_spam_count_change after update of is_spam on submissions
    when old.is_spam <> new.is_spam begin
    update form_daily_counts set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and day = substr(new.created_at, 1, 10) and shard = 0;
    update form_counts set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and shard = 0;
  end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  // What is still waiting is indexed now, the way 0007's trigger would have.
  await sql`insert into submissions_fts (rowid, form, body)
    select s.rowid, ${formToken('s')}, ${body('s')} from submissions s
    where s.rowid > (select last_rowid from submissions_fts_watermark)`.execute(db);
  await sql`create trigger submissions_after_insert after insert on submissions begin
    insert into submissions_fts (rowid, form, body) values (new.rowid, ${formToken('new')}, ${body('new')});
  end`.execute(db);
  await sql`drop trigger submissions_after_delete`.execute(db);
  await sql`create trigger submissions_after_delete after delete on submissions begin
    delete from submissions_fts where rowid = old.rowid;
    update form_daily_counts set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and day = substr(old.created_at, 1, 10) and shard = 0;
    update form_counts set inbox = inbox - (1 - old.is_spam), spam = spam - old.is_spam
      where form_id = old.form_id and shard = 0;
  end`.execute(db);
  await sql`drop trigger submissions_after_spam_count_change`.execute(db);
  await sql`drop trigger submissions_after_spam_change`.execute(db);
  await sql`create trigger submissions_after_spam_change after update of is_spam on submissions
    when old.is_spam <> new.is_spam begin
    delete from submissions_fts where rowid = old.rowid;
    insert into submissions_fts (rowid, form, body) values (new.rowid, ${formToken('new')}, ${body('new')});
    update form_daily_counts set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and day = substr(new.created_at, 1, 10) and shard = 0;
    update form_counts set inbox = inbox + old.is_spam - new.is_spam, spam = spam + new.is_spam - old.is_spam
      where form_id = new.form_id and shard = 0;
  end`.execute(db);
  await sql`drop table submissions_fts_watermark`.execute(db);
}
