import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';
import { createAccount, createOwner, insertSubmissions, servicesFor } from '../helpers/factories.js';

const file = emptyDatabaseForFile();

/** Raw rows: the columns before this migration are not today's schema type. */
const db = () => file.handle.db as unknown as Kysely<any>;

describe('migration 0037 (assignees are members who may triage; notes keep their author)', () => {
  it('clears assignments to viewers, former members and other accounts\' people, and keeps the rest', async () => {
    await migrateToLatest(file.handle);
    const services = servicesFor(file.handle);
    const owner = await createOwner(services);
    const stranger = await createAccount(services);
    const member = await services.members.add(owner.account.id, { email: 'm@example.com', role: 'member', password: 'correct horse battery' });
    const viewer = await services.members.add(owner.account.id, { email: 'v@example.com', role: 'viewer', password: 'correct horse battery' });
    const gone = await services.members.add(owner.account.id, { email: 'g@example.com', role: 'admin', password: 'correct horse battery' });
    const idOf = (added: typeof member) => ('member' in added ? added.member.userId : '');
    const ids = await insertSubmissions(services, owner.form.id, [0, 1, 2, 3, 4].map((i) => ({ createdAt: `2026-12-01T10:00:0${i}.000Z` })));
    expect((await (await createMigrator(file.handle)).migrateTo('0033_sessions_signed_on_at')).error).toBeUndefined();
    // As the code before it allowed: the membership removed and the assignment left behind.
    await db().deleteFrom('memberships').where('user_id', '=', idOf(gone)).execute();
    const assignees = [owner.account.id, idOf(member), idOf(viewer), idOf(gone), stranger.id];
    await db()
      .insertInto('submission_triage')
      .values(ids.map((id, i) => ({ submission_id: id, form_id: owner.form.id, assignee_id: assignees[i], notes: i === 0 ? 'kept' : '', updated_at: '2026-12-01T11:00:00.000Z' })))
      .execute();

    expect(await migrateToLatest(file.handle)).toContain('0037_assignees_are_triagers');
    const rows = await file.handle.db.selectFrom('submission_triage').select(['submission_id', 'assignee_id', 'notes', 'notes_by', 'notes_at']).execute();
    const byId = new Map(rows.map((r) => [r.submission_id, r]));
    expect(ids.map((id) => byId.get(id)!.assignee_id)).toEqual([owner.account.id, idOf(member), null, null, null]);
    expect(byId.get(ids[0]!)).toMatchObject({ notes: 'kept', notes_by: null, notes_at: null });
    // Notes written before it have no known author: the page shows none.
    expect((await services.inbox.triageOfOne(ids[0]!))).toMatchObject({ notes: 'kept', notesBy: null, notesAt: null });
  });
});
