import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The team inbox (docs/dashboard.md): triage state kept beside a submission, never in it (the
 * API's Submission fields do not change). A submission without a row is unread, open, unassigned
 * and untagged, so the submit path writes nothing here. `assignee_id` names a member: today the
 * account itself (its only member), later a user; it is a plain reference, not a foreign key, so
 * that change is an update of values, not a rebuild of the table. Tags are rows of their own, so
 * a filter by tag is an index lookup.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('submission_triage')
    .addColumn('submission_id', 'text', (c) => c.primaryKey().references('submissions.id').onDelete('cascade'))
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('read_at', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('assignee_id', 'text')
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The forms list's counts read only the rows marked read or done, per form.
  await db.schema.createIndex('submission_triage_form_read_idx').on('submission_triage').columns(['form_id', 'read_at']).execute();
  await db.schema.createIndex('submission_triage_form_state_idx').on('submission_triage').columns(['form_id', 'state']).execute();
  await db.schema.createIndex('submission_triage_assignee_idx').on('submission_triage').columns(['assignee_id']).execute();

  await db.schema
    .createTable('submission_tags')
    .addColumn('submission_id', 'text', (c) => c.notNull().references('submissions.id').onDelete('cascade'))
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('submission_tags_pk', ['submission_id', 'tag'])
    .execute();
  await db.schema.createIndex('submission_tags_form_tag_idx').on('submission_tags').columns(['form_id', 'tag']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('submission_tags').ifExists().execute();
  await db.schema.dropTable('submission_triage').ifExists().execute();
}
