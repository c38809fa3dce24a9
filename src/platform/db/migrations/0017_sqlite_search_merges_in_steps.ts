import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * SQLite only: the FTS5 search index no longer merges its segments inside the write that adds
 * one (`automerge`, by default after every write once a level holds 4 segments). Such a merge
 * made some indexing transactions take 15–25 ms instead of ~4, on the event loop, and set the
 * submit p99 under load (docs/performance.md#search-indexing-after-the-commit). The search indexer now merges after each chunk in
 * steps of a bounded number of pages, each in its own transaction, yielding to the event loop
 * between them. FTS5's `crisismerge` (a level of 16 segments is merged at the next write) stays,
 * so segments cannot pile up if the indexer is not running.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`insert into submissions_fts (submissions_fts, rank) values ('automerge', 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`insert into submissions_fts (submissions_fts, rank) values ('automerge', 4)`.execute(db);
}
