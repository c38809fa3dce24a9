import { describe, expect, it } from 'vitest';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';
import { createOwner, insertSubmissions, servicesFor } from '../helpers/factories.js';

const file = emptyDatabaseForFile();

/** Raw rows: the old tables are not in today's schema type. */
const db = () => file.handle.db as unknown as import('kysely').Kysely<any>;

describe('migration 0029 (one attempt log)', () => {
  it("copies every attempt of the three old logs into outbox_attempts, each hook delivery's last answer included, and removes an item's attempts with it", async () => {
    // An owner and submissions written by today's code, then the schema taken back to the
    // release before this migration, and attempts written as it wrote them.
    await migrateToLatest(file.handle);
    const services = servicesFor(file.handle);
    const owner = await createOwner(services);
    const [s1, s2] = await insertSubmissions(services, owner.form.id, [{ createdAt: '2026-11-01T10:00:00.000Z' }, { createdAt: '2026-11-01T10:00:01.000Z' }]);
    expect((await (await createMigrator(file.handle)).migrateTo('0028_hook_delivery_attempts')).error).toBeUndefined();
    const at = (s: number) => `2026-11-01T11:00:0${s}.000Z`;
    for (const id of ['hook_1', 'hook_2']) {
      await db().insertInto('hooks').values({ id, account_id: owner.account.id, form_id: owner.form.id, target_url: 'https://example.com/in', secret: 'whsec_x', created_at: at(0) }).execute();
    }
    const delivery = (id: string, submission: string, state: string, attempts: number, last: { at: string; status: number | null; error: string | null } | null) => ({
      id,
      hook_id: 'hook_1',
      submission_id: submission,
      state,
      created_at: at(0),
      attempts,
      attempted_at: last?.at ?? null,
      response_status: last?.status ?? null,
      duration_ms: last ? 7 : null,
      error: last?.error ?? null,
    });
    await db()
      .insertInto('hook_deliveries')
      .values([
        // Sent again once: the first answer in hook_delivery_attempts, the second on the row.
        delivery('d_twice', s1!, 'sent', 2, { at: at(2), status: 204, error: null }),
        // Queued again, not yet sent: its last answer was moved to the earlier attempts already.
        delivery('d_queued', s2!, 'pending', 1, { at: at(1), status: null, error: 'timeout' }),
        // Never attempted: nothing to copy.
        { ...delivery('d_never', s1!, 'pending', 0, null), hook_id: 'hook_2' },
      ])
      .execute();
    await db()
      .insertInto('hook_delivery_attempts')
      .values([
        { delivery_id: 'd_twice', attempt: 1, attempted_at: at(1), response_status: 500, duration_ms: 3, error: null },
        { delivery_id: 'd_queued', attempt: 1, attempted_at: at(1), response_status: null, duration_ms: 7, error: 'timeout' },
      ])
      .execute();
    await db()
      .insertInto('email_messages')
      .values({ id: 'eml_1', kind: 'submission', form_id: owner.form.id, submission_id: s1!, to_address: 'a@example.com', state: 'sent', attempts: 2, next_attempt_at: at(3), created_at: at(0) })
      .execute();
    await db()
      .insertInto('email_attempts')
      .values([
        { id: 'att_b', message_id: 'eml_1', attempted_at: at(3), outcome: 'sent', reply: '250 ok' },
        { id: 'att_a', message_id: 'eml_1', attempted_at: at(2), outcome: 'retry', reply: '451 later' },
      ])
      .execute();
    await db().insertInto('integrations').values({ id: 'int_1', form_id: owner.form.id, kind: 'slack', name: 'Slack', enabled: 1, url: 'https://hooks.slack.com/x', created_at: at(0) }).execute();
    await db()
      .insertInto('integration_messages')
      .values({ id: 'im_1', integration_id: 'int_1', submission_id: s2!, state: 'sent', attempts: 1, next_attempt_at: at(4), created_at: at(0) })
      .execute();
    await db()
      .insertInto('integration_attempts')
      .values([
        { id: 'iat_1', integration_id: 'int_1', message_id: 'im_1', attempted_at: at(4), outcome: 'sent', status: 200, error: null, duration_ms: 12 },
        { id: 'iat_test', integration_id: 'int_1', message_id: null, attempted_at: at(5), outcome: 'failed', status: 403, error: 'test: refused', duration_ms: 4 },
      ])
      .execute();

    expect(await migrateToLatest(file.handle)).toEqual(['0029_outbox_attempts', '0030_instance_admin_is_a_user', '0031_email_confirmation', '0032_tests_and_skips_in_outbox_log', '0033_sessions_signed_on_at', '0034_form_keys_and_api_writes', '0036_integration_settings', '0037_assignees_are_triagers', '0038_account_team_name']);
    const rows = await file.handle.db.selectFrom('outbox_attempts').selectAll().orderBy('item_id').orderBy('attempt').execute();
    expect(rows.map((r) => [r.channel, r.item_id, Number(r.attempt), r.attempted_at, r.outcome, r.status === null ? null : Number(r.status), r.error])).toEqual([
      ['hooks', 'd_queued', 1, at(1), 'failed', null, 'timeout'],
      ['hooks', 'd_twice', 1, at(1), 'failed', 500, null],
      ['hooks', 'd_twice', 2, at(2), 'sent', 204, null],
      ['email', 'eml_1', 1, at(2), 'retry', null, '451 later'],
      ['email', 'eml_1', 2, at(3), 'sent', null, '250 ok'],
      ['integrations', 'im_1', 1, at(4), 'sent', 200, null],
      // A test message is logged under its integration.
      ['integrations', 'int_1', 1, at(5), 'failed', 403, 'test: refused'],
    ]);
    for (const table of ['hook_delivery_attempts', 'email_attempts', 'integration_attempts']) {
      await expect(db().selectFrom(table).selectAll().execute()).rejects.toThrow();
    }

    // The readers show them: the submission's page lists each delivery's last answer and the ones before.
    const entries = await servicesFor(file.handle).hooks.listDeliveriesOfSubmission(owner.account.id, s1!);
    expect(entries.find((e) => e.id === 'd_twice')).toMatchObject({ attempts: 2, lastStatus: 'HTTP 204', lastAttemptAt: at(2), earlierAttempts: [{ at: at(1), answer: 'HTTP 500' }] });
    const attempts = await servicesFor(file.handle).integrations.listAttempts('int_1', 10);
    expect(attempts.map((a) => [a.outcome, a.status])).toEqual([['failed', 403], ['sent', 200]]);

    // An item's attempts go with it: a deleted submission takes its deliveries' and messages'.
    await servicesFor(file.handle).lifecycle.deleteSubmissions(owner.account.id, owner.form.id, [s1!]);
    const left = await file.handle.db.selectFrom('outbox_attempts').select('item_id').orderBy('item_id').execute();
    expect([...new Set(left.map((r) => r.item_id))]).toEqual(['d_queued', 'im_1', 'int_1']);
  });
});
