import { sql } from 'kysely';
import type { Executor } from './database.js';

/** Resolves when the database answers a trivial query; rejects otherwise. */
export async function pingDatabase(db: Executor): Promise<void> {
  await sql`select 1`.execute(db);
}
