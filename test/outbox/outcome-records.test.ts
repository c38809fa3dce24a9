import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  recordDeliveryAttemptsTogether,
  recordDeliveryAttemptsUnlessLocked,
  type DeliveryAttempt,
} from '../../src/hooks/delivery.repository.js';
import { newId } from '../../src/lib/ids.js';
import { recordAttemptsTogether, recordAttemptsUnlessLocked, type AttemptWrite } from '../../src/notifications/email-attempt.repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';

// The dispatcher records what finished together in one group: on SQLite through the fixed-text
// statements, on PostgreSQL through the statements that skip locked rows. Both must write every
// value as given and nothing for a row deleted meanwhile.
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  // Nothing of the app's own dispatcher may touch the rows these tests write.
  await t.services.outbox.stop();
});
afterAll(async () => t?.close());

const recordEmailGroup = async (records: AttemptWrite[]) => {
  if (t.handle.dialect === 'sqlite') await t.handle.db.transaction().execute((trx) => recordAttemptsTogether(trx, records));
  else await recordAttemptsUnlessLocked(t.handle.db, records);
};

const recordHookGroup = async (attempts: DeliveryAttempt[]) => {
  if (t.handle.dialect === 'sqlite') await recordDeliveryAttemptsTogether(t.handle.db, attempts);
  else await recordDeliveryAttemptsUnlessLocked(t.handle.db, attempts);
};

describe('outcomes recorded as a group', () => {
  it('email: every message and attempt as given, quotes and all; none for a message that is gone', async () => {
    const now = '2026-11-25T10:00:00.000Z';
    const ids = [newId('eml'), newId('eml'), newId('eml')];
    await t.handle.db
      .insertInto('email_messages')
      .values(ids.map((id) => ({ id, kind: 'test', to_address: 'a@example.com', state: 'sending', attempts: 0, next_attempt_at: now, claimed_at: now, claimed_by: '7', created_at: now })))
      .execute();
    const replies = ['250 2.0.0 Ok: queued as "X1"', '451 4.7.1 Try again \\ later, ünïcode ✓', '550 5.1.1 {"json": [1, 2]}'];
    const gone = newId('eml');
    const records: AttemptWrite[] = [...ids, gone].map((messageId, i) => ({
      attempt: { id: newId('att'), messageId, attemptedAt: `2026-11-25T10:00:0${i}.000Z`, outcome: ['sent', 'retry', 'failed', 'sent'][i]!, reply: replies[i] ?? 'never' },
      message: { state: ['sent', 'pending', 'failed', 'sent'][i]!, attempts: i + 1, nextAttemptAt: `2026-11-25T11:00:0${i}.000Z` },
    }));
    await recordEmailGroup(records);

    const messages = await t.handle.db.selectFrom('email_messages').selectAll().where('id', 'in', ids).orderBy('attempts').execute();
    expect(messages.map((m) => [m.id, m.state, Number(m.attempts), m.next_attempt_at, m.claimed_at, m.claimed_by])).toEqual([
      [ids[0], 'sent', 1, '2026-11-25T11:00:00.000Z', null, null],
      [ids[1], 'pending', 2, '2026-11-25T11:00:01.000Z', null, null],
      [ids[2], 'failed', 3, '2026-11-25T11:00:02.000Z', null, null],
    ]);
    const attempts = await t.handle.db.selectFrom('email_attempts').selectAll().where('message_id', 'in', [...ids, gone]).orderBy('attempted_at').execute();
    expect(attempts.map((a) => [a.id, a.message_id, a.attempted_at, a.outcome, a.reply])).toEqual(
      records.slice(0, 3).map(({ attempt: a }) => [a.id, a.messageId, a.attemptedAt, a.outcome, a.reply]),
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
    const attempts: DeliveryAttempt[] = [
      { id: deliveryIds[0]!, attempts: 1, state: 'sent', attemptedAt: '2026-11-25T10:00:00.000Z', status: 204, durationMs: 12, error: null },
      { id: deliveryIds[1]!, attempts: 1, state: 'failed', attemptedAt: '2026-11-25T10:00:01.000Z', status: null, durationMs: 5000, error: 'timeout' },
      { id: deliveryIds[2]!, attempts: 1, state: 'failed', attemptedAt: '2026-11-25T10:00:02.000Z', status: 500, durationMs: 0, error: 'it said "no" \\ twice' },
      { id: `sub_gone.${hookId}`, attempts: 1, state: 'sent', attemptedAt: '2026-11-25T10:00:03.000Z', status: 200, durationMs: 1, error: null },
    ];
    await recordHookGroup(attempts);

    const rows = await t.handle.db.selectFrom('hook_deliveries').selectAll().where('id', 'in', deliveryIds).orderBy('id').execute();
    const byId = new Map(rows.map((r) => [r.id, [r.state, r.attempted_at, r.response_status, r.duration_ms === null ? null : Number(r.duration_ms), r.error]]));
    expect(rows).toHaveLength(4);
    for (const a of attempts.slice(0, 3)) expect(byId.get(a.id)).toEqual([a.state, a.attemptedAt, a.status, a.durationMs, a.error]);
    expect(byId.get(deliveryIds[3]!)).toEqual(['sending', null, null, null, null]);
  });
});
