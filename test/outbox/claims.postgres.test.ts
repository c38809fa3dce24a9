import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClaimFixtures, type ClaimFixtures } from './claim-fixtures.js';

// PostgreSQL only: two dispatchers (instances) claim from the same table at once.
let f: ClaimFixtures;

beforeAll(async () => {
  f = await startClaimFixtures();
});
afterAll(async () => f?.t.close());

describe('hook delivery claims beside another dispatcher', () => {
  it('skip a row another transaction holds, and claim it once released', async () => {
    const [held, free] = (await f.insertDeliveries([{ state: 'pending', second: 1 }, { state: 'pending', second: 2 }])) as [string, string];
    const other = f.t.database.open({ poolSize: 1 });
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holding = other.db.transaction().execute(async (trx) => {
        await trx.selectFrom('hook_deliveries').select('id').where('id', '=', held).forUpdate().execute();
        locked();
        await released;
      });
      await isLocked;
      expect((await f.claimDeliveries(5)).map((d) => d.id)).toEqual([free]);
      release();
      await holding;
      expect((await f.claimDeliveries(5)).map((d) => d.id)).toEqual([held]);
    } finally {
      await other.close();
    }
  });
});
