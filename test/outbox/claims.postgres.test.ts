import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseDueItems, leaseDueItemsStatement } from '../../src/features/outbox/outbox.repository.js';
import { NOW, startClaimFixtures, type ClaimFixtures } from './claim-fixtures.js';

// PostgreSQL only: two dispatchers (instances) claim from the same table at once, and the plan of
// the claim's statement over a retrying channel's table, which only PostgreSQL's planner chooses.
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

describe('claims of a retrying channel (email) after many sends', () => {
  it('walk the due index in order, past the entries of messages already sent, instead of visiting them all', async () => {
    const { db } = f.t.handle;
    await db.deleteFrom('email_messages').execute();
    // 5,000 messages sent (each left `pending` by an update, leaving a dead entry in the due
    // index until vacuum) and 40 still due: what a busy server's table looks like between vacuums.
    await sql`insert into email_messages (id, kind, form_id, submission_id, to_address, state, attempts, next_attempt_at, created_at)
      select 'eml_dead' || lpad(i::text, 12, '0'), 'submission', ${f.owner.form.id}, ${f.submissionId}, 'owner@example.com', 'pending', 0,
        '2026-11-25T09:' || lpad((i % 60)::text, 2, '0') || ':00.000Z', '2026-11-25T09:00:00.000Z'
      from generate_series(1, 5040) i`.execute(db);
    await sql`update email_messages set state = 'sent' where id <= 'eml_dead000000005000'`.execute(db);
    const scanned = await db.transaction().execute(async (trx) => {
      const options = { limit: 32, now: NOW, instance: '42', retries: true };
      const leased = await leaseDueItems(trx, 'postgres', 'email_messages', options);
      expect(await leased!.selectFrom('leased').select('id').execute()).toHaveLength(32);
      // The claim's own statement, planned in the same transaction (so under the claim's settings)
      // with its parameters; EXPLAIN without ANALYZE plans the update without running it.
      const claim = leaseDueItemsStatement('postgres', 'email_messages', options).compile(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain (format text) ${claim.sql}`, [...claim.parameters]),
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(scanned).toContain('Index Scan using email_messages_due_idx');
    expect(scanned).not.toContain('Bitmap Index Scan on email_messages_due_idx');
  });
});
