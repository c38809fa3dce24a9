import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/lib/ids.js';
import { loadLeasedDeliveries } from '../../src/features/hooks/delivery.repository.js';
import { loadLeasedMessageRows } from '../../src/features/notifications/email.repository.js';
import { leaseDueItems } from '../../src/features/outbox/outbox.repository.js';
import { NOW, startClaimFixtures, type ClaimFixtures } from './claim-fixtures.js';

// The outbox's one claim over two channels' tables: a hook channel leases by age, a retrying
// channel by due time; each channel loads what sending needs (on PostgreSQL in the lease's own
// statement). Beside another dispatcher: claims.postgres.test.ts.
let f: ClaimFixtures;

beforeAll(async () => {
  f = await startClaimFixtures();
});
afterAll(async () => f?.t.close());

describe('hook delivery claims', () => {
  it('the oldest pending, up to the limit, leased to the claimant; what sending needs comes with them', async () => {
    await f.t.handle.db.deleteFrom('hook_deliveries').execute();
    const [pendingOld, pendingMid, pendingNew, held, done] = (await f.insertDeliveries([
      { state: 'pending', second: 1 },
      { state: 'pending', second: 2 },
      { state: 'pending', second: 3 },
      { state: 'sending', claimedAt: '2026-11-25T09:00:00.000Z', second: 0 },
      { state: 'sent', second: 0 },
    ])) as [string, string, string, string, string];

    const first = await f.claimDeliveries(2);
    expect(first.map((d) => d.id)).toEqual([pendingOld, pendingMid]);
    expect(first.find((d) => d.id === pendingOld)).toEqual({
      id: pendingOld,
      hookId: f.hookId,
      attempts: 0,
      targetUrl: 'https://hooks.example/in',
      secret: 'whsec_test',
      submission: expect.objectContaining({ id: f.submissionId, formId: f.owner.form.id, payload: '{"name":"Ada"}', ip: '203.0.113.1' }),
    });
    expect((await f.claimDeliveries(3)).map((d) => d.id)).toEqual([pendingNew]);
    // A claim in sending, however old, is the outbox's to take back (its lease), never a claim's.
    expect(await f.claimDeliveries(3)).toEqual([]);

    const rows = await f.t.handle.db.selectFrom('hook_deliveries').select(['id', 'state', 'claimed_at', 'claimed_by']).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of [pendingOld, pendingMid, pendingNew]) expect(byId.get(id)).toEqual({ id, state: 'sending', claimed_at: NOW, claimed_by: '7' });
    expect(byId.get(held)).toEqual({ id: held, state: 'sending', claimed_at: '2026-11-25T09:00:00.000Z', claimed_by: null });
    expect(byId.get(done)?.state).toBe('sent');
  });

  it('lease and load are one statement on PostgreSQL (the lease is its CTE), two on SQLite', async () => {
    await f.t.handle.db.deleteFrom('hook_deliveries').execute();
    const [pending] = await f.insertDeliveries([{ state: 'pending', second: 1 }]);
    const statements: string[] = [];
    const claimed = await f.t.handle.db.transaction().execute(async (trx) => {
      const counted = trx.withPlugin({
        transformQuery: ({ node }) => (statements.push(node.kind), node),
        transformResult: async ({ result }) => result,
      });
      const leased = await leaseDueItems(counted, f.t.handle.dialect, 'hook_deliveries', { limit: 8, now: NOW, instance: '7', retries: false });
      return leased ? loadLeasedDeliveries(leased) : [];
    });
    expect(claimed.map((d) => d.id)).toEqual([pending]);
    expect(statements).toHaveLength(f.t.handle.dialect === 'postgres' ? 1 : 2);
  });
});

describe('email message claims', () => {
  it('due pending messages only, oldest first, claimed by this instance, with the form and submission they are composed from', async () => {
    await f.t.handle.db.deleteFrom('email_messages').execute();
    const message = (state: string, nextAttemptAt: string) => ({
      id: newId('eml'),
      kind: 'submission',
      form_id: f.owner.form.id,
      submission_id: f.submissionId,
      to_address: 'owner@example.com',
      state,
      attempts: 0,
      next_attempt_at: nextAttemptAt,
      created_at: '2026-11-25T09:00:00.000Z',
    });
    const rows = [
      message('pending', '2026-11-25T09:59:00.000Z'),
      message('pending', '2026-11-25T09:50:00.000Z'),
      message('pending', '2026-11-25T10:30:00.000Z'),
      message('sending', '2026-11-25T09:00:00.000Z'),
    ];
    await f.t.handle.db.insertInto('email_messages').values(rows).execute();
    const [later, earlier, future, sending] = rows.map((r) => r.id);

    const claim = (limit: number) =>
      f.t.handle.db.transaction().execute(async (trx) => {
        const leased = await leaseDueItems(trx, f.t.handle.dialect, 'email_messages', { limit, now: NOW, instance: '42', retries: true });
        return leased ? loadLeasedMessageRows(leased) : [];
      });
    const first = await claim(1);
    expect(first.map((m) => m.id)).toEqual([earlier]);
    expect(first[0]).toMatchObject({ form_name: f.owner.form.name, s_payload: '{"name":"Ada"}', s_created_at: '2026-11-25T09:00:00.000Z', recipient_state: null });
    // The lease's columns stay out of the load: PostgreSQL reads the row as it was before the lease.
    for (const column of ['state', 'claimed_at', 'claimed_by']) expect(first[0]).not.toHaveProperty(column);
    expect((await claim(5)).map((m) => m.id)).toEqual([later]);
    expect(await claim(5)).toEqual([]);

    const states = await f.t.handle.db.selectFrom('email_messages').select(['id', 'state', 'claimed_at', 'claimed_by']).execute();
    expect(new Map(states.map((s) => [s.id, [s.state, s.claimed_at, s.claimed_by]]))).toEqual(
      new Map([
        [later, ['sending', NOW, '42']],
        [earlier, ['sending', NOW, '42']],
        [future, ['pending', null, null]],
        [sending, ['sending', null, null]],
      ]),
    );
  });
});
