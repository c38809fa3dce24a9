import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * PostgreSQL only: `formgate_search_vector` (migration 0006) was declared `parallel safe`, but its
 * exception block starts a subtransaction, which a parallel worker may not do. A search whose
 * plan evaluates it in a worker (a parallel bitmap heap scan whose bitmap went lossy, on a large
 * table) failed with "cannot start subtransactions during a parallel operation". Declared
 * `parallel restricted`, it runs in the leader only; the expression index is unaffected.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`alter function formgate_search_vector(text) parallel restricted`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`alter function formgate_search_vector(text) parallel safe`.execute(db);
}
