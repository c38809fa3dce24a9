import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { TriageFilter } from '../inbox/inbox.types.js';

/**
 * The team inbox's filters as SQL on the submission row whose ID is `idColumn`, over the inbox's
 * tables (submission_triage, submission_tags). A submission without a triage row is unread, open
 * and unassigned, so those filters are "no row says otherwise".
 */
export function triageConditions(filter: TriageFilter | undefined, idColumn: 's.id' | 'submissions.id'): RawBuilder<SqlBool>[] {
  if (!filter) return [];
  const id = sql.ref(idColumn);
  const row = (condition: RawBuilder<unknown>) => sql<SqlBool>`exists (select 1 from submission_triage t where t.submission_id = ${id} and ${condition})`;
  const conditions: RawBuilder<SqlBool>[] = [];
  if (filter.read !== undefined) conditions.push(filter.read ? row(sql`t.read_at is not null`) : sql<SqlBool>`not ${row(sql`t.read_at is not null`)}`);
  if (filter.state !== undefined) conditions.push(filter.state === 'done' ? row(sql`t.state = 'done'`) : sql<SqlBool>`not ${row(sql`t.state = 'done'`)}`);
  if (filter.assigneeId !== undefined) {
    conditions.push(filter.assigneeId === null ? sql<SqlBool>`not ${row(sql`t.assignee_id is not null`)}` : row(sql`t.assignee_id = ${filter.assigneeId}`));
  }
  if (filter.tag !== undefined) conditions.push(sql<SqlBool>`exists (select 1 from submission_tags g where g.submission_id = ${id} and g.tag = ${filter.tag})`);
  return conditions;
}
