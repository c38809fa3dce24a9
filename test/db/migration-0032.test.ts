import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';
import { createOwner, insertSubmissions, servicesFor } from '../helpers/factories.js';

const file = emptyDatabaseForFile();

/** Raw rows: the old table is not in today's schema type. */
const db = () => file.handle.db as unknown as Kysely<any>;

const at = (s: number) => `2026-12-01T10:00:0${s}.000Z`;

describe('migration 0032 (test sends and skips in the one attempt log)', () => {
  it("moves a hook's test sends and every skip's reason into outbox_attempts, and removes a hook's or a recipient's with it", async () => {
    // An owner and submissions written by today's code, then the schema taken back to the
    // release before this migration, and rows written as it wrote them.
    await migrateToLatest(file.handle);
    const services = servicesFor(file.handle);
    const owner = await createOwner(services);
    const [s1, s2] = await insertSubmissions(services, owner.form.id, [{ createdAt: at(0) }, { createdAt: at(1) }]);
    expect((await (await createMigrator(file.handle)).migrateTo('0031_email_confirmation')).error).toBeUndefined();
    await db().insertInto('hooks').values({ id: 'hook_1', account_id: owner.account.id, form_id: owner.form.id, target_url: 'https://example.com/in', secret: 'whsec_x', created_at: at(0) }).execute();
    await db()
      .insertInto('hook_test_deliveries')
      .values([
        { id: 'test_2.hook_1', hook_id: 'hook_1', attempted_at: at(2), response_status: 200, duration_ms: 5, error: null },
        { id: 'test_1.hook_1', hook_id: 'hook_1', attempted_at: at(1), response_status: null, duration_ms: 7, error: 'timeout' },
      ])
      .execute();
    await db().insertInto('email_recipients').values({ id: 'rcp_1', form_id: owner.form.id, address: 'a@example.com', state: 'verified', created_at: at(0), verified_at: at(0) }).execute();
    const message = { form_id: owner.form.id, submission_id: s1!, attempts: 0, next_attempt_at: at(3), created_at: at(0) };
    await db()
      .insertInto('email_messages')
      .values([
        { ...message, id: 'cf.guarded', kind: 'confirmation', to_address: 'v@example.com', state: 'skipped', skip_reason: 'daily_cap' },
        // Skipped before the reason was kept for a notification: the recipient was not verified.
        { ...message, id: 'sn.unverified', kind: 'submission', to_address: 'a@example.com', state: 'skipped', skip_reason: null },
        { ...message, id: 'sn.sent', kind: 'submission', to_address: 'a@example.com', state: 'sent', attempts: 1 },
      ])
      .execute();
    await db().insertInto('integrations').values({ id: 'int_1', form_id: owner.form.id, kind: 'slack', name: 'Slack', enabled: 0, disabled_reason: 'turned off by the owner', url: 'https://hooks.slack.com/x', created_at: at(0) }).execute();
    await db()
      .insertInto('integration_messages')
      .values([
        // Skipped when the integration was turned off, with nothing in the log.
        { id: 'im.off', integration_id: 'int_1', submission_id: s1!, state: 'skipped', attempts: 0, next_attempt_at: at(4), created_at: at(0) },
        // Skipped by its send, which logged it already.
        { id: 'im.logged', integration_id: 'int_1', submission_id: s2!, state: 'skipped', attempts: 1, next_attempt_at: at(4), created_at: at(0) },
      ])
      .execute();
    await db().insertInto('outbox_attempts').values({ id: 'att_logged', channel: 'integrations', item_id: 'im.logged', attempt: 1, attempted_at: at(4), outcome: 'skipped', error: 'the integration is turned off' }).execute();

    expect(await migrateToLatest(file.handle)).toEqual(['0032_tests_and_skips_in_outbox_log', '0033_sessions_signed_on_at', '0034_form_keys_and_api_writes', '0036_integration_settings', '0037_assignees_are_triagers', '0038_account_team_name']);
    await expect(db().selectFrom('hook_test_deliveries').selectAll().execute()).rejects.toThrow();
    const rows = await file.handle.db.selectFrom('outbox_attempts').selectAll().orderBy('item_id').orderBy('attempt').execute();
    expect(rows.map((r) => [r.channel, r.item_id, Number(r.attempt), r.attempted_at, r.outcome, r.status === null ? null : Number(r.status), r.error])).toEqual([
      ['email', 'cf.guarded', 1, at(3), 'skipped', null, 'daily_cap'],
      ['hooks', 'hook_1', 1, at(1), 'failed', null, 'timeout'],
      ['hooks', 'hook_1', 2, at(2), 'sent', 200, null],
      ['integrations', 'im.logged', 1, at(4), 'skipped', null, 'the integration is turned off'],
      ['integrations', 'im.off', 1, at(4), 'skipped', null, 'turned off by the owner'],
      ['email', 'sn.unverified', 1, at(3), 'skipped', null, 'recipient_not_verified'],
    ]);
    // A skip counts as the item's attempt, as the outbox counts one now.
    const attempts = async (table: string) => (await db().selectFrom(table).select(['id', 'attempts']).orderBy('id').execute()).map((r) => [r.id, Number(r.attempts)]);
    expect(await attempts('email_messages')).toEqual([['cf.guarded', 1], ['sn.sent', 1], ['sn.unverified', 1]]);
    expect(await attempts('integration_messages')).toEqual([['im.logged', 1], ['im.off', 1]]);

    // The readers show them from the log.
    const today = servicesFor(file.handle);
    expect((await today.hooks.listRecentDeliveries(owner.account.id, 'hook_1', 10)).map((d) => [d.submissionId, d.state, d.responseStatus, d.error])).toEqual([
      [null, 'sent', 200, null],
      [null, 'failed', null, 'timeout'],
    ]);
    const log = await today.notifications.emailLog(owner.account.id, owner.form.id);
    expect(log.filter((e) => e.state === 'skipped').map((e) => [e.id, e.skipReason, e.attempts])).toEqual([
      ['sn.unverified', 'recipient_not_verified', []],
      ['cf.guarded', 'daily_cap', []],
    ]);

    // What is logged under a hook or a recipient goes with it.
    await file.handle.db.insertInto('outbox_attempts').values({ id: 'att_rcp', channel: 'email', item_id: 'rcp_1', attempt: 1, attempted_at: at(5), outcome: 'sent', error: '250 ok' }).execute();
    await today.hooks.deleteHook(owner.account.id, 'hook_1');
    await today.notifications.setRecipients(owner.form.id, [], { verified: true });
    const left = await file.handle.db.selectFrom('outbox_attempts').select('item_id').distinct().orderBy('item_id').execute();
    expect(left.map((r) => r.item_id)).toEqual(['cf.guarded', 'im.logged', 'im.off', 'sn.unverified']);

    // And back: the hook's table returns (empty now: the hook is gone), email's reasons stay in skip_reason.
    expect((await (await createMigrator(file.handle)).migrateTo('0031_email_confirmation')).error).toBeUndefined();
    expect(await db().selectFrom('hook_test_deliveries').selectAll().execute()).toEqual([]);
    expect(await db().selectFrom('email_messages').select(['id', 'skip_reason', 'attempts']).where('state', '=', 'skipped').orderBy('id').execute()).toEqual([
      { id: 'cf.guarded', skip_reason: 'daily_cap', attempts: 0 },
      { id: 'sn.unverified', skip_reason: 'recipient_not_verified', attempts: 0 },
    ]);
    expect((await db().selectFrom('outbox_attempts').select('item_id').orderBy('item_id').execute()).map((r) => r.item_id)).toEqual(['im.logged']);
    await migrateToLatest(file.handle);
  });
});
