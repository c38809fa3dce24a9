import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Uploaded files (docs/files.md) and each form's upload settings. A file row is written
 * before its content is stored and names its submission only once that submission is about to
 * be written, so a crash at any point leaves a row the sweeper finds. No foreign key ties a file
 * to its submission, form or account: the row must outlive them until its stored content is
 * deleted, or the content would be lost track of.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('form_id', 'text', (c) => c.notNull())
    .addColumn('submission_id', 'text')
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('scan_state', 'text', (c) => c.notNull().defaultTo('clean'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('files_submission_idx').on('files').column('submission_id').execute();
  // The per-account quota sums sizes by account; the sweeper walks rows by age.
  await db.schema.createIndex('files_account_idx').on('files').columns(['account_id', 'size']).execute();
  await db.schema.createIndex('files_created_idx').on('files').column('created_at').execute();
  await db.schema.createIndex('files_form_idx').on('files').column('form_id').execute();
  await db.schema.createIndex('files_scan_idx').on('files').column('scan_state').execute();

  await db.schema.alterTable('forms').addColumn('files_mode', 'text', (c) => c.notNull().defaultTo('off')).execute();
  await db.schema.alterTable('forms').addColumn('max_files', 'integer', (c) => c.notNull().defaultTo(5)).execute();
  await db.schema.alterTable('forms').addColumn('max_file_bytes', 'bigint', (c) => c.notNull().defaultTo(10 * 1024 * 1024)).execute();
  await db.schema.alterTable('forms').addColumn('max_total_bytes', 'bigint', (c) => c.notNull().defaultTo(25 * 1024 * 1024)).execute();
  await db.schema.alterTable('forms').addColumn('file_types', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['file_types', 'max_total_bytes', 'max_file_bytes', 'max_files', 'files_mode']) {
    await db.schema.alterTable('forms').dropColumn(column).execute();
  }
  await db.schema.dropTable('files').execute();
}
