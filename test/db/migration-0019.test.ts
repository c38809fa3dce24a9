import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';
import { createOwner, insertSubmissions, servicesFor } from '../helpers/factories.js';

const file = emptyDatabaseForFile();

describe('migration 0019 (deliveries sent again)', () => {
  it('keeps every delivery, counts one attempt for each one attempted, and leaves them sendable again', async () => {
    // An owner and a submission written by today's code, then the schema taken back to the
    // release before this migration, and deliveries in every state written as it wrote them.
    await migrateToLatest(file.handle);
    const services = servicesFor(file.handle);
    const owner = await createOwner(services);
    const [submissionId] = await insertSubmissions(services, owner.form.id, [{ createdAt: '2026-11-01T10:00:00.000Z' }]);
    expect((await (await createMigrator(file.handle)).migrateTo('0018_counters_hours_before_totals')).error).toBeUndefined();
    const now = '2026-11-01T10:00:01.000Z';
    await file.handle.db
      .insertInto('hooks')
      .values({ id: 'hook_old', account_id: owner.account.id, form_id: owner.form.id, target_url: 'https://example.com/in', secret: 'whsec_x', created_at: now })
      .execute();
    const old = (id: string, state: string, attempted: boolean) => ({
      id,
      hook_id: 'hook_old',
      submission_id: submissionId!,
      state,
      created_at: now,
      ...(attempted ? { attempted_at: now, response_status: state === 'sent' ? 200 : 500, duration_ms: 3, error: null } : {}),
    });
    // Written without the new columns, as the old code wrote them.
    await file.handle.db.insertInto('hook_deliveries').values([old('d_sent', 'sent', true), old('d_failed', 'failed', true), old('d_pending', 'pending', false)] as never).execute();

    expect((await migrateToLatest(file.handle))[0]).toBe('0019_deliveries_sent_again');
    const rows = await file.handle.db.selectFrom('hook_deliveries').select(['id', 'state', 'attempts', 'claimed_by']).orderBy('id').execute();
    expect(rows.map((r) => [r.id, r.state, Number(r.attempts), r.claimed_by])).toEqual([
      ['d_failed', 'failed', 1, null],
      ['d_pending', 'pending', 0, null],
      ['d_sent', 'sent', 1, null],
    ]);
    // Their answers are in the outbox's attempt log since migration 0029.
    const answers = await file.handle.db.selectFrom('outbox_attempts').select(['item_id', 'attempt', 'status']).orderBy('item_id').execute();
    expect(answers.map((a) => [a.item_id, Number(a.attempt), a.status])).toEqual([
      ['d_failed', 1, 500],
      ['d_sent', 1, 200],
    ]);
    // A hook's test sends are in the log too since migration 0032: their table is gone.
    await expect((file.handle.db as unknown as Kysely<any>).selectFrom('hook_test_deliveries').selectAll().execute()).rejects.toThrow();
    // The migrated rows are the log's and can be sent again.
    const entries = await servicesFor(file.handle).hooks.listDeliveriesOfSubmission(owner.account.id, submissionId!);
    expect(entries.map((e) => [e.id, e.state, e.attempts, e.canSendAgain])).toEqual([
      ['d_failed', 'failed', 1, true],
      ['d_pending', 'queued', 0, false],
      ['d_sent', 'sent', 1, true],
    ]);
  });
});
