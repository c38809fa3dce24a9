import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/lib/ids.js';
import { recordAttemptsTogether, recordAttemptsUnlessLocked, type AttemptWrite, type ItemTable } from '../../src/features/outbox/outbox.repository.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';

// The outbox records what finished together in one group: on SQLite through the fixed-text
// statements, on PostgreSQL through the statement that skips locked rows. Both must write every
// value as given and nothing for an item deleted meanwhile.
let t: AppUnderTest;

beforeAll(async () => {
  t = await buildTestApp();
  // Nothing of the app's own dispatcher may touch the rows these tests write.
  await t.services.outbox.stop();
});
afterAll(async () => t?.close());

const recordGroup = async (items: ItemTable, writes: AttemptWrite[]) => {
  if (t.handle.dialect === 'sqlite') await t.handle.db.transaction().execute((trx) => recordAttemptsTogether(trx, items, writes));
  else await recordAttemptsUnlessLocked(t.handle.db, items, writes);
};

const attemptRows = (itemIds: string[]) => t.handle.db.selectFrom('outbox_attempts').selectAll().where('item_id', 'in', itemIds).orderBy('attempted_at').execute();

describe('attempts recorded as a group', () => {
  it('email: every message and attempt as given, quotes and all; none for a message that is gone', async () => {
    const now = '2026-11-25T10:00:00.000Z';
    const ids = [newId('eml'), newId('eml'), newId('eml')];
    await t.handle.db
      .insertInto('email_messages')
      .values(ids.map((id) => ({ id, kind: 'test', to_address: 'a@example.com', state: 'sending', attempts: 0, next_attempt_at: now, claimed_at: now, claimed_by: '7', created_at: now })))
      .execute();
    const replies = ['250 2.0.0 Ok: queued as "X1"', '451 4.7.1 Try again \\ later, ünïcode ✓', '550 5.1.1 {"json": [1, 2]}'];
    const gone = newId('eml');
    const writes: AttemptWrite[] = [...ids, gone].map((itemId, i) => ({
      id: newId('att'),
      channel: 'email',
      itemId,
      attempt: i + 1,
      attemptedAt: `2026-11-25T10:00:0${i}.000Z`,
      outcome: ['sent', 'retry', 'failed', 'sent'][i]!,
      status: null,
      durationMs: null,
      error: replies[i] ?? 'never',
      state: ['sent', 'pending', 'failed', 'sent'][i]!,
      // Only a retry moves the due time.
      nextAttemptAt: i === 1 ? '2026-11-25T11:00:01.000Z' : null,
    }));
    await recordGroup({ table: 'email_messages', retries: true }, writes);

    const messages = await t.handle.db.selectFrom('email_messages').selectAll().where('id', 'in', ids).orderBy('attempts').execute();
    expect(messages.map((m) => [m.id, m.state, Number(m.attempts), m.next_attempt_at, m.claimed_at, m.claimed_by])).toEqual([
      [ids[0], 'sent', 1, now, null, null],
      [ids[1], 'pending', 2, '2026-11-25T11:00:01.000Z', null, null],
      [ids[2], 'failed', 3, now, null, null],
    ]);
    const attempts = await attemptRows([...ids, gone]);
    expect(attempts.map((a) => [a.id, a.channel, a.item_id, Number(a.attempt), a.attempted_at, a.outcome, a.error])).toEqual(
      writes.slice(0, 3).map((w) => [w.id, 'email', w.itemId, w.attempt, w.attemptedAt, w.outcome, w.error]),
    );
  });

  it('hooks: status, duration and error as given (null too), other deliveries untouched', async () => {
    const owner = await createOwner(t.services, { planId: 'pro' });
    const hookId = newId('hook');
    await t.handle.db
      .insertInto('hooks')
      .values({ id: hookId, account_id: owner.account.id, form_id: owner.form.id, target_url: 'https://hooks.example.com/in', secret: 'whsec_x', created_at: '2026-11-25T09:00:00.000Z' })
      .execute();
    const submissionIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await submit(t, owner.form.id, { json: { n: i } }, JSON_ACCEPT);
      submissionIds.push(((await res.json()) as { submissionId: string }).submissionId);
    }
    const deliveryIds = submissionIds.map((s) => `${s}.${hookId}`);
    await t.handle.db
      .insertInto('hook_deliveries')
      .values(deliveryIds.map((id, i) => ({ id, hook_id: hookId, submission_id: submissionIds[i]!, state: 'sending', created_at: '2026-11-25T09:30:00.000Z' })))
      .execute();
    const write = (itemId: string, i: number, state: string, status: number | null, durationMs: number | null, error: string | null): AttemptWrite => ({
      id: newId('att'),
      channel: 'hooks',
      itemId,
      attempt: 1,
      attemptedAt: `2026-11-25T10:00:0${i}.000Z`,
      outcome: state,
      status,
      durationMs,
      error,
      state,
      nextAttemptAt: null,
    });
    const writes = [
      write(deliveryIds[0]!, 0, 'sent', 204, 12, null),
      write(deliveryIds[1]!, 1, 'failed', null, 5000, 'timeout'),
      write(deliveryIds[2]!, 2, 'failed', 500, 0, 'it said "no" \\ twice'),
      write(`sub_gone.${hookId}`, 3, 'sent', 200, 1, null),
    ];
    await recordGroup({ table: 'hook_deliveries', retries: false }, writes);

    const rows = await t.handle.db.selectFrom('hook_deliveries').selectAll().where('id', 'in', deliveryIds).orderBy('id').execute();
    expect(rows).toHaveLength(4);
    const byId = new Map(rows.map((r) => [r.id, [r.state, Number(r.attempts), r.claimed_by]]));
    for (const w of writes.slice(0, 3)) expect(byId.get(w.itemId)).toEqual([w.state, 1, null]);
    expect(byId.get(deliveryIds[3]!)).toEqual(['sending', 0, null]);
    const attempts = await attemptRows([...deliveryIds, `sub_gone.${hookId}`]);
    expect(attempts.map((a) => [a.item_id, a.status === null ? null : Number(a.status), a.duration_ms === null ? null : Number(a.duration_ms), a.error])).toEqual(
      writes.slice(0, 3).map((w) => [w.itemId, w.status, w.durationMs, w.error]),
    );
  });
});
