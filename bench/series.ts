// The soak's per-second series: when in a load its slowest answers were sent, and what PostgreSQL
// was doing in those seconds (a checkpoint writing, an autovacuum worker running, how much WAL it
// wrote). A p99 that misses can then be placed in time and set beside a cause, which a p99 over
// the whole load cannot.
import pg from 'pg';
import { percentile } from './stats.js';

/** One answer of a load: when its request was sent (`performance.now()`) and how long it took (ms). */
export interface Answer {
  sentAt: number;
  ms: number;
}

/** PostgreSQL in one second of a load, as read at its end. */
export interface PostgresSecond {
  walKb: number;
  /** The checkpointer was writing a checkpoint (its wait event is the spread checkpoint's delay or an I/O). */
  checkpointing: boolean;
  /** What autovacuum workers were doing ("VACUUM submissions", "ANALYZE submissions"). */
  autovacuum: string[];
}

export interface SecondOfLoad {
  second: number;
  answers: number;
  p99: number;
  slowestMs: number;
  postgres?: PostgresSecond;
}

/**
 * The load's answers grouped by the second since `startedAt` (a `performance.now()`) their
 * requests were sent in, with PostgreSQL's samples beside them.
 */
export function perSecond(answers: Answer[], startedAt: number, samples: PostgresSample[] = []): SecondOfLoad[] {
  const bySecond = new Map<number, number[]>();
  for (const answer of answers) {
    const second = Math.max(0, Math.floor((answer.sentAt - startedAt) / 1000));
    const ms = bySecond.get(second);
    if (ms) ms.push(answer.ms);
    else bySecond.set(second, [answer.ms]);
  }
  return [...bySecond.entries()]
    .sort(([a], [b]) => a - b)
    .map(([second, ms]) => {
      const postgres = postgresSecond(samples, startedAt + second * 1000);
      return { second, answers: ms.length, p99: percentile(ms, 0.99), slowestMs: Math.max(...ms), ...(postgres ? { postgres } : {}) };
    });
}

/** The `count` seconds with the slowest answers, slowest first. */
export function slowestSeconds(seconds: SecondOfLoad[], count: number): SecondOfLoad[] {
  return [...seconds].sort((a, b) => b.slowestMs - a.slowestMs || a.second - b.second).slice(0, count);
}

/** "s 37: 223 / 180 ms, 398 sent; WAL 1,204 kB, checkpoint, autovacuum VACUUM submissions": the slowest answer, then the p99. */
export function describeSecond(s: SecondOfLoad): string {
  const latency = `s ${s.second}: ${Math.round(s.slowestMs)} / ${Math.round(s.p99)} ms, ${s.answers} sent`;
  if (!s.postgres) return latency;
  const { walKb, checkpointing, autovacuum } = s.postgres;
  return [`${latency}; WAL ${walKb.toLocaleString('en')} kB`, ...(checkpointing ? ['checkpoint'] : []), ...autovacuum.map((table) => `autovacuum ${table}`)].join(', ');
}

/** What the sampler read, and when (`performance.now()`). */
export interface PostgresSample {
  at: number;
  walBytes: number;
  checkpointing: boolean;
  autovacuum: string[];
}

/**
 * The second from `from` is read from the samples nearest its start and its end: the WAL written
 * between them, and the checkpointer's and autovacuum's state at either.
 */
function postgresSecond(samples: PostgresSample[], from: number): PostgresSecond | undefined {
  const nearest = (at: number) => samples.reduce<PostgresSample | undefined>((best, x) => (!best || Math.abs(x.at - at) < Math.abs(best.at - at) ? x : best), undefined);
  const [start, end] = [nearest(from), nearest(from + 1000)];
  if (!start || !end || start === end) return undefined;
  return {
    walKb: Math.round((end.walBytes - start.walBytes) / 1024),
    checkpointing: start.checkpointing || end.checkpointing,
    autovacuum: [...new Set([...start.autovacuum, ...end.autovacuum])],
  };
}

// Idle, the checkpointer waits in CheckpointerMain; writing a checkpoint, it waits in its spread
// delay, on I/O, or on nothing (on the CPU). Autovacuum's text names the bench's private schema.
const SAMPLE_SQL = `
  select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 as wal_bytes,
    coalesce((select coalesce(wait_event, '') <> 'CheckpointerMain' from pg_stat_activity where backend_type = 'checkpointer'), false) as checkpointing,
    coalesce((select array_agg(regexp_replace(query, '^autovacuum: |bench_[a-z0-9]+\\.', '', 'g')) from pg_stat_activity
      where backend_type = 'autovacuum worker' and query like 'autovacuum:%'), '{}') as autovacuum`;

/** Reads PostgreSQL once a second on a connection of its own, from now until `stop()`, which returns the samples. */
export async function samplePostgres(url: string): Promise<{ stop(): Promise<PostgresSample[]> }> {
  const client = new pg.Client({ connectionString: url });
  const samples: PostgresSample[] = [];
  let failure: unknown;
  const noteFailure = (err: unknown) => {
    failure ??= err;
  };
  // A connection PostgreSQL ends is reported as an event: unheard, it would end the bench.
  client.on('error', noteFailure);
  await client.connect();
  const read = async () => {
    const at = performance.now();
    const row = (await client.query<{ wal_bytes: number; checkpointing: boolean; autovacuum: string[] }>(SAMPLE_SQL)).rows[0]!;
    samples.push({ at, walBytes: row.wal_bytes, checkpointing: row.checkpointing, autovacuum: row.autovacuum });
  };
  // The first reading is taken before the caller's load starts: begun, not awaited, it could run
  // after a short load had already written its WAL, and the load would read as writing none.
  let reading = read().catch(noteFailure);
  await reading;
  const timer = setInterval(() => {
    reading = reading.then(read).catch(noteFailure);
  }, 1000);
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      await read().catch(noteFailure);
      await client.end().catch(noteFailure);
      if (failure) throw failure;
      return samples;
    },
  };
}
