import { describe, expect, it } from 'vitest';
import { describeSecond, perSecond, slowestSeconds, type PostgresSample } from '../series.js';

// The soak's per-second series (bench/series.ts): answers grouped by when their requests were
// sent, so a stall shows in the second it began, with PostgreSQL's samples read beside them.
describe('the soak per-second series', () => {
  const startedAt = 10_000;
  const answers = [
    { sentAt: startedAt + 100, ms: 5 },
    { sentAt: startedAt + 900, ms: 50 },
    // Sent in the first second, answered in the fourth: it belongs to the second it was sent in.
    { sentAt: startedAt + 999, ms: 3000 },
    { sentAt: startedAt + 1500, ms: 7 },
    { sentAt: startedAt + 2100, ms: 9 },
  ];

  it('groups answers by the second their requests were sent in, with their p99 and slowest', () => {
    expect(perSecond(answers, startedAt)).toEqual([
      { second: 0, answers: 3, p99: 3000, slowestMs: 3000 },
      { second: 1, answers: 1, p99: 7, slowestMs: 7 },
      { second: 2, answers: 1, p99: 9, slowestMs: 9 },
    ]);
  });

  it("sets PostgreSQL's samples beside the seconds they bound: WAL between them, the state at either", () => {
    const samples: PostgresSample[] = [
      { at: startedAt + 3, walBytes: 0, checkpointing: false, autovacuum: [] },
      { at: startedAt + 1004, walBytes: 10 * 1024, checkpointing: true, autovacuum: [] },
      { at: startedAt + 1998, walBytes: 30 * 1024, checkpointing: false, autovacuum: ['VACUUM submissions'] },
    ];
    const [first, second, third] = perSecond(answers, startedAt, samples);
    expect(first!.postgres).toEqual({ walKb: 10, checkpointing: true, autovacuum: [] });
    expect(second!.postgres).toEqual({ walKb: 20, checkpointing: true, autovacuum: ['VACUUM submissions'] });
    // Its start and its end are read from the same (last) sample: nothing to say.
    expect(third!.postgres).toBeUndefined();
  });

  it('lists the slowest seconds first, at most as many as asked', () => {
    const seconds = perSecond([...answers, { sentAt: startedAt + 2500, ms: 7 }, { sentAt: startedAt + 3500, ms: 9 }], startedAt);
    expect(slowestSeconds(seconds, 3).map((s) => s.second)).toEqual([0, 2, 3]);
    expect(slowestSeconds(seconds, 10)).toHaveLength(4);
  });

  it('describes a second: slowest / p99, requests sent, then what PostgreSQL did', () => {
    expect(describeSecond({ second: 37, answers: 398, p99: 180.4, slowestMs: 223.2 })).toBe('s 37: 223 / 180 ms, 398 sent');
    expect(describeSecond({ second: 37, answers: 398, p99: 180, slowestMs: 223, postgres: { walKb: 1204, checkpointing: true, autovacuum: ['VACUUM submissions', 'ANALYZE forms'] } })).toBe(
      's 37: 223 / 180 ms, 398 sent; WAL 1,204 kB, checkpoint, autovacuum VACUUM submissions, autovacuum ANALYZE forms',
    );
    expect(describeSecond({ second: 2, answers: 400, p99: 9, slowestMs: 12, postgres: { walKb: 0, checkpointing: false, autovacuum: [] } })).toBe('s 2: 12 / 9 ms, 400 sent; WAL 0 kB');
  });
});
