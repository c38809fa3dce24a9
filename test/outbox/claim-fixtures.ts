import { loadLeasedDeliveries } from '../../src/features/hooks/delivery.repository.js';
import { leaseDueItems } from '../../src/features/outbox/outbox.repository.js';
import { newId } from '../../src/platform/lib/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner, insertSubmissions } from '../helpers/factories.js';

export const NOW = '2026-11-25T10:00:00.000Z';

export interface ClaimFixtures {
  t: TestApp;
  owner: Awaited<ReturnType<typeof createOwner>>;
  submissionId: string;
  hookId: string;
  /** Deliveries of the one submission with the given states, claim times and creation seconds; returns their IDs. */
  insertDeliveries(rows: Array<{ state: string; claimedAt?: string; second: number }>): Promise<string[]>;
  /** A claim of the hook channel as the outbox runs it (lease, then the channel's load), at NOW, leased to instance `7`. */
  claimDeliveries(limit: number): ReturnType<typeof loadLeasedDeliveries>;
}

/**
 * An app whose own dispatcher is stopped (nothing but the test claims), a form with one stored
 * submission and one hook on it.
 */
export async function startClaimFixtures(): Promise<ClaimFixtures> {
  const t = await startTestApp();
  await t.services.outbox.stop();
  const owner = await createOwner(t.services);
  const [submissionId] = await insertSubmissions(t.services, owner.form.id, [{ createdAt: '2026-11-25T09:00:00.000Z', payload: { name: 'Ada' } }]);
  const hookId = newId('hook');
  await t.handle.db
    .insertInto('hooks')
    .values({ id: hookId, account_id: owner.account.id, form_id: owner.form.id, target_url: 'https://hooks.example/in', secret: 'whsec_test', created_at: '2026-11-25T08:00:00.000Z' })
    .execute();
  return {
    t,
    owner,
    submissionId: submissionId!,
    hookId,
    async insertDeliveries(rows) {
      const values = rows.map((row) => ({
        id: newId('dlv'),
        hook_id: hookId,
        submission_id: submissionId!,
        state: row.state,
        claimed_at: row.claimedAt ?? null,
        created_at: `2026-11-25T09:30:${String(row.second).padStart(2, '0')}.000Z`,
      }));
      await t.handle.db.insertInto('hook_deliveries').values(values).execute();
      return values.map((v) => v.id);
    },
    claimDeliveries(limit) {
      return t.handle.db.transaction().execute(async (trx) => {
        const leased = await leaseDueItems(trx, t.handle.dialect, 'hook_deliveries', { limit, now: NOW, instance: '7', retries: false });
        return leased ? loadLeasedDeliveries(leased) : [];
      });
    },
  };
}
