import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Who last wrote a submission's private notes, and when: the page shows them beside the notes.
 * And a submission is assigned only to someone of its account who may triage it: assignments
 * left to people who were removed, left, or became viewers before that rule are cleared, so the
 * list, the submission's page and the "Nobody" filter agree about them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('submission_triage').addColumn('notes_by', 'text').execute();
  await db.schema.alterTable('submission_triage').addColumn('notes_at', 'text').execute();
  await sql`update submission_triage set assignee_id = null
    where assignee_id is not null and not exists (
      select 1 from forms f join memberships m on m.account_id = f.account_id
      where f.id = submission_triage.form_id and m.user_id = submission_triage.assignee_id and m.role <> 'viewer')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('submission_triage').dropColumn('notes_at').execute();
  await db.schema.alterTable('submission_triage').dropColumn('notes_by').execute();
}
