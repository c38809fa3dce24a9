import { sql } from 'kysely';
import type { Executor, Trx } from '../../platform/db/database.js';

// The FTS5 row of a submission (migration 0006): its filters as words in `form`, its field values
// in `body`. Kept in step with the spam-change trigger of migration 0012, which writes the same.
const FORM_WORDS = sql.raw(
  `replace(s.form_id, '_', '') || case when s.is_spam = 1 then ' spam' else ' inbox' end` +
    ` || ' d' || replace(substr(s.created_at, 1, 10), '-', '') || ' m' || replace(substr(s.created_at, 1, 7), '-', '')` +
    ` || ' y' || substr(s.created_at, 1, 4)`,
);
const BODY_WORDS = sql.raw(`case when json_valid(s.payload) then (select group_concat(value, ' ') from json_each(s.payload)) else '' end`);

/**
 * SQLite: adds up to `limit` of the submissions above the watermark (migration 0012) to the
 * search index, oldest first, and moves the watermark past them; returns how many. The insert
 * takes the write lock before anything is read, so both statements see the same rows, and
 * another process indexing at the same time waits and then starts after them.
 */
export async function indexPendingSubmissions(trx: Trx, limit: number): Promise<number> {
  const chunk = sql`select rowid from submissions where rowid > (select last_rowid from submissions_fts_watermark) order by rowid limit ${limit}`;
  const indexed = await sql`insert into submissions_fts (rowid, form, body)
    select s.rowid, ${FORM_WORDS}, ${BODY_WORDS} from submissions s where s.rowid in (${chunk})`.execute(trx);
  const count = Number(indexed.numAffectedRows ?? 0);
  if (count > 0) await sql`update submissions_fts_watermark set last_rowid = (select max(rowid) from (${chunk}))`.execute(trx);
  return count;
}

/**
 * SQLite: one step of merging the search index's segments (migration 0017 left merging to the
 * indexer), writing at most about `pages` pages; returns whether there was anything to merge.
 * FTS5 merges only levels holding 4 segments or more (its `usermerge`), and says whether it did
 * any work only through the connection's change count.
 */
export async function mergeSearchIndexStep(trx: Trx, pages: number): Promise<boolean> {
  const changes = async () => Number((await sql<{ n: number }>`select total_changes() as n`.execute(trx)).rows[0]!.n);
  const before = await changes();
  // A literal: FTS5 refuses the page count as a bound integer parameter.
  await sql`insert into submissions_fts (submissions_fts, rank) values ('merge', ${sql.lit(pages)})`.execute(trx);
  return (await changes()) - before > 1;
}

/** SQLite: how many submissions are not in the search index yet. */
export async function countPendingSearchRows(db: Executor): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from submissions where rowid > (select last_rowid from submissions_fts_watermark)`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * PostgreSQL: merges the search index's pending list (the words of rows inserted since the last
 * merge, kept unsorted by GIN's `fastupdate`) into the index, as vacuum would; returns how many
 * of the list's pages it emptied. Only the index's owner may (SQLSTATE 42501 otherwise).
 */
export async function mergePendingSearchEntries(db: Executor): Promise<number> {
  const { rows } = await sql<{ pages: string | number }>`select gin_clean_pending_list('submissions_search_idx'::regclass) as pages`.execute(db);
  return Number(rows[0]!.pages);
}
