import pino from 'pino';
import { sql, type CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { AttemptRecorder } from '../../src/features/outbox/outbox.round.js';
import type { OutboxChannel, OutboxItem, RecordedAttempt, SendOutcome } from '../../src/features/outbox/outbox.types.js';
import { fourfoldBackoff } from '../../src/features/outbox/outbox.types.js';
import type { TestDatabase } from '../helpers/database.js';
import { useMigratedDatabase } from '../helpers/factories.js';

// The outbox records every attempt of every channel: the item's new state and one row of the
// attempt log, from the channel's outcome and policy; a side effect with it, or neither.
let handle: DatabaseHandle;
let database: TestDatabase;
useMigratedDatabase((opened) => ({ handle, database } = opened));

const TABLE = 'test_items_recorded';
const EARLIER = '2026-11-25T09:00:00.000Z';
const BASE_MS = 60_000;

beforeAll(async () => {
  await sql`create table ${sql.table(TABLE)} (id text primary key, state text not null, created_at text not null, claimed_at text, claimed_by text,
    attempts integer not null default 0, next_attempt_at text not null)`.execute(handle.db);
  await sql`create table test_side_effects (item_id text not null)`.execute(handle.db);
});

/** A retrying channel whose send answers `outcome`; its settle notes the item in test_side_effects (or throws). */
function channelAnswering(outcome: SendOutcome, settle?: (item: OutboxItem, attempt: RecordedAttempt) => void): OutboxChannel & { seen: RecordedAttempt[] } {
  const seen: RecordedAttempt[] = [];
  return {
    seen,
    name: 'recorded',
    maxInFlight: 4,
    table: TABLE,
    policy: fourfoldBackoff(BASE_MS),
    formHasWorkSql: () => 'false',
    expand: async () => 0,
    load: async () => [],
    send: async () => outcome,
    settle: async (trx, item, attempt) => {
      settle?.(item, attempt);
      await sql`insert into test_side_effects (item_id) values (${item.id})`.execute(trx);
    },
    recorded: (_item, attempt) => void seen.push(attempt),
    close: async () => {},
  };
}

/** An item being sent (leased), with `attempts` made before. */
async function sendingItem(id: string, attempts: number): Promise<OutboxItem> {
  await sql`insert into ${sql.table(TABLE)} (id, state, created_at, claimed_at, claimed_by, attempts, next_attempt_at)
    values (${id}, 'sending', ${EARLIER}, ${EARLIER}, '7', ${attempts}, ${EARLIER})`.execute(handle.db);
  return { id, attempts };
}

async function itemRow(id: string) {
  const { rows } = await sql<{ state: string; attempts: number; next_attempt_at: string; claimed_at: string | null; claimed_by: string | null }>`
    select state, attempts, next_attempt_at, claimed_at, claimed_by from ${sql.table(TABLE)} where id = ${id}`.execute(handle.db);
  return rows[0] && { ...rows[0], attempts: Number(rows[0].attempts) };
}

async function attemptsOf(id: string) {
  const rows = await handle.db.selectFrom('outbox_attempts').selectAll().where('item_id', '=', id).orderBy('attempt').execute();
  return rows.map((r) => ({ channel: r.channel, attempt: Number(r.attempt), outcome: r.outcome, status: r.status === null ? null : Number(r.status), durationMs: r.duration_ms === null ? null : Number(r.duration_ms), error: r.error }));
}

async function sideEffectsOf(id: string): Promise<number> {
  return (await sql<{ item_id: string }>`select item_id from test_side_effects where item_id = ${id}`.execute(handle.db)).rows.length;
}

function recorder(wakes: number[] = []) {
  return new AttemptRecorder(handle, pino({ level: 'silent' }), (ms) => wakes.push(ms));
}

const answer = (kind: 'sent' | 'permanent' | 'temporary', extra: Partial<SendOutcome> = {}): SendOutcome => ({
  answer: { kind },
  status: 200,
  durationMs: 12,
  error: null,
  ...extra,
});

describe('the outbox records each attempt', () => {
  it('sent: the item is sent, its claim cleared, and one attempt row says so', async () => {
    const item = await sendingItem('it_sent', 0);
    await recorder().send(channelAnswering(answer('sent')), item);
    expect(await itemRow(item.id)).toEqual({ state: 'sent', attempts: 1, next_attempt_at: EARLIER, claimed_at: null, claimed_by: null });
    expect(await attemptsOf(item.id)).toEqual([{ channel: 'recorded', attempt: 1, outcome: 'sent', status: 200, durationMs: 12, error: null }]);
  });

  it('temporary: pending again, due after the backoff (or Retry-After), and the dispatcher is woken then', async () => {
    const wakes: number[] = [];
    const first = await sendingItem('it_retry', 0);
    const before = Date.now();
    await recorder(wakes).send(channelAnswering(answer('temporary', { status: 503, error: 'HTTP 503' })), first);
    const row = (await itemRow(first.id))!;
    expect(row).toMatchObject({ state: 'pending', attempts: 1, claimed_at: null, claimed_by: null });
    expect(Date.parse(row.next_attempt_at) - before).toBeGreaterThanOrEqual(BASE_MS);
    expect(Date.parse(row.next_attempt_at) - before).toBeLessThan(BASE_MS + 5_000);
    expect(await attemptsOf(first.id)).toEqual([{ channel: 'recorded', attempt: 1, outcome: 'retry', status: 503, durationMs: 12, error: 'HTTP 503' }]);
    const second = await sendingItem('it_retry_after', 2);
    await recorder(wakes).send(channelAnswering(answer('temporary', { status: 429, error: 'HTTP 429', answer: { kind: 'temporary', retryAfterMs: 5_000 } })), second);
    expect(wakes).toEqual([BASE_MS, 5_000]);
    expect((await attemptsOf(second.id)).map((a) => [a.attempt, a.outcome])).toEqual([[3, 'retry']]);
  });

  it('temporary on the last allowed attempt: failed, and the error says it gave up', async () => {
    const item = await sendingItem('it_gave_up', 4);
    await recorder().send(channelAnswering(answer('temporary', { status: 500, error: 'HTTP 500' })), item);
    expect(await itemRow(item.id)).toMatchObject({ state: 'failed', attempts: 5, next_attempt_at: EARLIER });
    expect(await attemptsOf(item.id)).toEqual([{ channel: 'recorded', attempt: 5, outcome: 'failed', status: 500, durationMs: 12, error: 'HTTP 500 (gave up after 5 attempts)' }]);
  });

  it("permanent: failed, or the channel's own state and label; a channel's recorded() hears what was written", async () => {
    const failed = await sendingItem('it_failed', 0);
    await recorder().send(channelAnswering(answer('permanent', { status: 400, error: 'HTTP 400' })), failed);
    expect(await itemRow(failed.id)).toMatchObject({ state: 'failed', attempts: 1 });
    expect((await attemptsOf(failed.id)).map((a) => a.outcome)).toEqual(['failed']);
    const skipped = await sendingItem('it_skipped', 0);
    const channel = channelAnswering(answer('permanent', { status: null, error: 'turned off', label: 'skipped', state: 'skipped' }));
    await recorder().send(channel, skipped);
    expect(await itemRow(skipped.id)).toMatchObject({ state: 'skipped', attempts: 1 });
    expect(await attemptsOf(skipped.id)).toEqual([{ channel: 'recorded', attempt: 1, outcome: 'skipped', status: null, durationMs: 12, error: 'turned off' }]);
    expect(channel.seen).toEqual([{ attempt: 1, attemptedAt: expect.any(String), outcome: 'skipped', state: 'skipped', error: 'turned off' }]);
    // Only an outcome that settles runs the side effect.
    expect(await sideEffectsOf(skipped.id)).toBe(0);
  });

  it('an outcome that settles: its side effect commits with the attempt, or neither is written', async () => {
    const bounced = await sendingItem('it_bounced', 0);
    await recorder().send(channelAnswering(answer('permanent', { status: null, error: '550 no such user', label: 'bounced', state: 'bounced', settles: true })), bounced);
    expect(await itemRow(bounced.id)).toMatchObject({ state: 'bounced', attempts: 1, claimed_by: null });
    expect((await attemptsOf(bounced.id)).map((a) => [a.outcome, a.error])).toEqual([['bounced', '550 no such user']]);
    expect(await sideEffectsOf(bounced.id)).toBe(1);

    const broken = await sendingItem('it_settle_fails', 0);
    const failing = channelAnswering(answer('permanent', { label: 'bounced', state: 'bounced', settles: true }), () => {
      throw new Error('the side effect failed');
    });
    await recorder().send(failing, broken);
    // Rolled back together: the item is still leased (its lease runs out and it is sent again).
    expect(await itemRow(broken.id)).toMatchObject({ state: 'sending', attempts: 0, claimed_by: '7' });
    expect(await attemptsOf(broken.id)).toEqual([]);
    expect(await sideEffectsOf(broken.id)).toBe(0);
  });

  it('writes no attempt for an item deleted while it was sent, batched or settled', async () => {
    const gone: OutboxItem = { id: 'it_gone', attempts: 0 };
    await recorder().send(channelAnswering(answer('sent')), gone);
    await recorder().send(channelAnswering(answer('permanent', { settles: true })), { id: 'it_gone_settled', attempts: 0 });
    expect(await attemptsOf('it_gone')).toEqual([]);
    expect(await attemptsOf('it_gone_settled')).toEqual([]);
  });

  it('writes the attempts that finish together as one group: one insert into the log for all', async () => {
    const items = await Promise.all(['it_g1', 'it_g2', 'it_g3'].map((id) => sendingItem(id, 0)));
    const queries: CompiledQuery[] = [];
    const watched = database.open({ onQuery: (q) => queries.push(q) });
    try {
      const shared = new AttemptRecorder(watched, pino({ level: 'silent' }), () => {});
      await Promise.all(items.map((item, i) => shared.send(channelAnswering(i === 1 ? answer('temporary', { error: 'later' }) : answer('sent')), item)));
    } finally {
      await watched.close();
    }
    expect(queries.filter((q) => /insert into outbox_attempts/.test(q.sql))).toHaveLength(1);
    expect(await Promise.all(items.map(async (item) => (await itemRow(item.id))!.state))).toEqual(['sent', 'pending', 'sent']);
    expect((await Promise.all(items.map((item) => attemptsOf(item.id)))).map((a) => a.map((x) => x.outcome))).toEqual([['sent'], ['retry'], ['sent']]);
  });
});
