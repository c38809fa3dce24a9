import { sql } from 'kysely';
import type { Executor, Trx } from '../../platform/db/database.js';
import type { SubmissionTagRow, SubmissionTriageRow } from '../../platform/db/schema.js';
import { toTriageState, type SubmissionTriage } from './inbox.types.js';

type TriageRowWithAssignee = SubmissionTriageRow & { assignee_email: string | null; notes_by_email: string | null };

/** What a triage action changes; the columns not named keep their value (or default, for a new row). */
export interface TriageChange {
  read_at?: string | null;
  state?: string;
  assignee_id?: string | null;
  notes?: string;
  notes_by?: string | null;
  notes_at?: string | null;
}

export function triageRowToTriage(row: TriageRowWithAssignee | undefined, tags: string[]): SubmissionTriage {
  return {
    read: row?.read_at != null,
    state: toTriageState(row?.state ?? 'open'),
    assigneeId: row?.assignee_id ?? null,
    assignee: row?.assignee_id != null ? (row.assignee_email ?? null) : null,
    tags: [...tags].sort(),
    notes: row?.notes ?? '',
    notesBy: row?.notes_at != null ? (row.notes_by_email ?? 'a former user') : null,
    notesAt: row?.notes_at ?? null,
  };
}

/** The triage rows of these submissions, with the emails of the assignee and of the notes' last writer (users). */
export async function findTriageRowsOf(db: Executor, ids: string[]): Promise<TriageRowWithAssignee[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('submission_triage as t')
    .leftJoin('users as a', 'a.id', 't.assignee_id')
    .leftJoin('users as w', 'w.id', 't.notes_by')
    .selectAll('t')
    .select(['a.email as assignee_email', 'w.email as notes_by_email'])
    .where('t.submission_id', 'in', ids)
    .execute();
}

/**
 * Clears the assignments of a user on the account's submissions, returning how many were
 * cleared: someone who left the account, or may no longer triage, keeps nothing assigned.
 */
export async function clearAssignmentsOfUser(trx: Trx, accountId: string, userId: string, now: string): Promise<number> {
  const result = await trx
    .updateTable('submission_triage')
    .set({ assignee_id: null, updated_at: now })
    .where('assignee_id', '=', userId)
    .where('form_id', 'in', (eb) => eb.selectFrom('forms').select('forms.id').where('forms.account_id', '=', accountId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The assignee of each of these submissions that has one. */
export async function findAssigneesOf(db: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('submission_triage').select(['submission_id', 'assignee_id']).where('submission_id', 'in', ids).where('assignee_id', 'is not', null).execute();
  return new Map(rows.map((r) => [r.submission_id, r.assignee_id!]));
}

export async function listTagRowsOf(db: Executor, ids: string[]): Promise<SubmissionTagRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('submission_tags').selectAll().where('submission_id', 'in', ids).orderBy('tag').execute();
}

/** A submission with its form and the form's account. */
export interface SubmissionOfForm {
  id: string;
  formId: string;
  formName: string;
  accountId: string;
}

/** Which of these IDs are submissions of the account's forms (any account's when absent), with their form. */
export async function findSubmissionFormsOfAccount(db: Executor, ids: string[], accountId?: string): Promise<SubmissionOfForm[]> {
  if (ids.length === 0) return [];
  let q = db
    .selectFrom('submissions')
    .innerJoin('forms', 'forms.id', 'submissions.form_id')
    .select(['submissions.id as id', 'submissions.form_id as formId', 'forms.name as formName', 'forms.account_id as accountId'])
    .where('submissions.id', 'in', ids);
  if (accountId !== undefined) q = q.where('forms.account_id', '=', accountId);
  return q.execute();
}

/** Writes the change on each submission's row, creating the rows that do not exist yet. */
export async function upsertTriageRows(trx: Trx, targets: Array<{ id: string; formId: string }>, change: TriageChange, now: string): Promise<void> {
  if (targets.length === 0) return;
  await trx
    .insertInto('submission_triage')
    .values(targets.map((t) => ({ submission_id: t.id, form_id: t.formId, updated_at: now, ...change })))
    .onConflict((oc) => oc.column('submission_id').doUpdateSet({ ...change, updated_at: now }))
    .execute();
}

/** Submissions of these that are unread (no row, or a row without read_at). */
export async function findReadIds(db: Executor, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('submission_triage').select('submission_id').where('submission_id', 'in', ids).where('read_at', 'is not', null).execute();
  return new Set(rows.map((r) => r.submission_id));
}

/** How many tags each of these submissions has (absent: none). */
export async function countTagsOf(trx: Executor, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('submission_tags')
    .select((eb) => ['submission_id', eb.fn.countAll<string | number>().as('n')])
    .where('submission_id', 'in', ids)
    .groupBy('submission_id')
    .execute();
  return new Map(rows.map((r) => [r.submission_id, Number(r.n)]));
}

export async function insertTagRows(trx: Trx, rows: SubmissionTagRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx.insertInto('submission_tags').values(rows).onConflict((oc) => oc.columns(['submission_id', 'tag']).doNothing()).execute();
}

export async function deleteTagRows(trx: Trx, ids: string[], tag: string): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx.deleteFrom('submission_tags').where('submission_id', 'in', ids).where('tag', '=', tag).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The tags used on a form, for the filter's choices. */
export async function listTagsOfForm(db: Executor, formId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('submission_tags').select('tag').distinct().where('form_id', '=', formId).orderBy('tag').limit(limit).execute();
  return rows.map((r) => r.tag);
}

/**
 * Per form, how many of its non-spam submissions were read and how many are done: the forms
 * list's unread and open counts are the inbox counter minus these. Only triaged rows are read,
 * never the form's whole history.
 */
export async function countTriagedInboxRows(db: Executor, formIds: string[]): Promise<Array<{ formId: string; read: number; done: number }>> {
  if (formIds.length === 0) return [];
  const rows = await db
    .selectFrom('submission_triage as t')
    .innerJoin('submissions as s', 's.id', 't.submission_id')
    .select([
      't.form_id',
      sql<string | number>`sum(case when t.read_at is not null then 1 else 0 end)`.as('read'),
      sql<string | number>`sum(case when t.state = 'done' then 1 else 0 end)`.as('done'),
    ])
    .where('t.form_id', 'in', formIds)
    .where('s.is_spam', '=', 0)
    .groupBy('t.form_id')
    .execute();
  return rows.map((r) => ({ formId: r.form_id, read: Number(r.read ?? 0), done: Number(r.done ?? 0) }));
}
