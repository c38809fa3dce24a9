import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Sealed forms (docs/sealed-forms.md): the age recipients a form's submissions are encrypted to
 * in the visitor's browser, as a JSON array of {recipient, label}. Null means the form is not
 * sealed; a sealed form keeps at least one recipient.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('forms').addColumn('sealed_recipients', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('forms').dropColumn('sealed_recipients').execute();
}
