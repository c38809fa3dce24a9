import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The submit path's form directory (FormDirectory) reads the forms created since its last read, every
 * second while invented form IDs arrive: an index on created_at keeps that read to the new rows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('forms_created_idx').on('forms').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('forms_created_idx').execute();
}
