import { sql } from 'kysely';
import type { Executor, Trx } from '../db/database.js';

// The FTS5 row of a submission (migration 0006): its filters as words in `form`, its field values
// in `body`. Kept in step with the spam-change trigger of migration 0012, which writes the same.
const FORM_WORDS = sql.raw(
  `replace(s.form_id, '_', '') || case when s.is_spam = 1 then ' spam' else ' inbox' end` +
    ` || ' d' || replace(substr(s.created_at, 1, 10), '-', '') || ' m' || replace(substr(s.created_at, 1, 7), '-', '')` +
    ` || ' y' || substr(s.created_at, 1, 4)`,
);
const BODY_WORDS = sql.raw(`case when json_valid(s.payload) then (select group_concat(value, ' ') from json_each(s.payload)) else '' end`);

/**
 * SQLite: adds up to `limit` of the submissions waiting in `submissions_fts_pending` to the
 * search index and clears their notes, oldest first; returns how many. The insert takes the
 * write lock before anything is read, so another process indexing at the same time waits and
 * then finds other rows.
 */
export async function indexPendingSubmissions(trx: Trx, limit: number): Promise<number> {
  const chunk = sql`select rowid from submissions_fts_pending order by rowid limit ${limit}`;
  const indexed = await sql`insert into submissions_fts (rowid, form, body)
    select s.rowid, ${FORM_WORDS}, ${BODY_WORDS} from submissions s where s.rowid in (${chunk})`.execute(trx);
  await sql`delete from submissions_fts_pending where rowid in (${chunk})`.execute(trx);
  return Number(indexed.numAffectedRows ?? 0);
}

/** SQLite: how many submissions are not in the search index yet. */
export async function countPendingSearchRows(db: Executor): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from submissions_fts_pending`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
