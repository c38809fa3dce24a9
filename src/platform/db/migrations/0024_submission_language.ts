import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The language Formgate chose for a submission (the form's, or for `auto` the best match of the
 * visitor's Accept-Language): its confirmation email speaks the language its pages spoke. Null
 * for submissions stored before, which keep the form's language (English for `auto`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('submissions').addColumn('language', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('submissions').dropColumn('language').execute();
}
