// What `npm run bench:profile` runs once profile.ts has checked its options and perf: each side
// loaded while perf samples the machine, and the table of PostgreSQL's CPU a row by part. Imported
// only then, as it loads the product and the load generator, which a refusal has no use for.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { FORM_BODY, JSON_BODY, PG_ADMIN_URL, benchAccount, freshDatabase, load, queryPostgres, type BenchDatabase } from './lib.js';
import type { ProfileOptions } from './profile.options.js';
import { madeForRun, markedEnv, removedFromRun } from './reaper.js';
import { startFormgate, startReference, type Child } from './servers.js';

const BODIES = { json: [JSON_BODY, 'application/json'], urlencoded: [FORM_BODY, 'application/x-www-form-urlencoded'] } as const;
const WARM_UP_SECONDS = 3;
/** A perf that has not acknowledged a command by then is stuck, not slow. */
const ACK_TIMEOUT_MS = 30_000;
/** How long perf may take to write its file after SIGINT before it is killed. */
const FINISH_TIMEOUT_MS = 30_000;

/**
 * The parts, each a function whose samples include all it calls; a `·` part lies within the part
 * above it. The names are PostgreSQL 15's: a function another version names otherwise reads 0.
 */
const PARTS: ReadonlyArray<readonly [label: string, fn: string]> = [
  ["the search index's expression (FormIndexDatum)", 'FormIndexDatum'],
  ['· jsonb_to_tsvector', 'jsonb_to_tsvector_byid'],
  ["· the payload's cast (jsonb_in)", 'jsonb_in'],
  ['B-tree inserts (btinsert)', 'btinsert'],
  ['GIN inserts (gininsert)', 'gininsert'],
  ["the batch's rows from its parameters (ExecMakeTableFunctionResult)", 'ExecMakeTableFunctionResult'],
  ['executor start (standard_ExecutorStart)', 'standard_ExecutorStart'],
  ['executor finish: CTEs run last (standard_ExecutorFinish)', 'standard_ExecutorFinish'],
  ['the heap insert (heap_insert)', 'heap_insert'],
  ['commit (CommitTransactionCommand)', 'CommitTransactionCommand'],
  ["· the WAL flush's fdatasync", 'fdatasync'],
];

/** PostgreSQL's CPU under one side's load: nanoseconds in all and by part, and the rows answered. */
interface Profile {
  rows: number;
  rps: number;
  /** The measured load's rows a batch: each batch is one statement in one transaction, so its rows share an xmin. */
  rowsABatch: number;
  totalNs: number;
  partNs: number[];
}

/**
 * `perf record` of the whole machine, started with its events off and switched on and off over its
 * control descriptors (3 in, 4 for its acknowledgements), so the samples span exactly the load.
 * Marked for the reaper: a run killed meanwhile does not leave it sampling.
 */
class PerfRecording {
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  /** Rejects once perf has exited: a command raced against it fails instead of waiting for ever. */
  private readonly failed: Promise<never>;
  private stderr = '';
  private waiting: Array<() => void> = [];

  constructor(file: string, frequency: number) {
    // cpu-clock, whatever the machine has: its periods are nanoseconds, which cpuTimeOf sums.
    this.child = spawn('perf', ['record', '-e', 'cpu-clock', '-a', '-g', '-F', String(frequency), '-D', '-1', '--control', 'fd:3,4', '-o', file], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      env: markedEnv(process.env),
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    // A write to a perf that has exited fails; `exited` reports that, with perf's own words.
    (this.child.stdio[3] as NodeJS.WritableStream).on('error', () => {});
    createInterface({ input: this.child.stdio[4] as NodeJS.ReadableStream }).on('line', (line) => {
      // perf ends each acknowledgement with "\n\0", so the next line begins with the NUL.
      if (line.replace(/\0/g, '').trim() === 'ack') this.waiting.shift()?.();
    });
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null);
    this.failed = this.exited.then((code) => {
      throw new Error(`perf record exited (${code}) before it acknowledged a command: ${this.stderr.trim()}`);
    });
    // Read only in a race: perf's exit after its last command is no failure.
    this.failed.catch(() => {});
  }

  /** Sends a control command and waits for perf's acknowledgement (its exit, or none in time, fails). */
  async command(name: 'enable' | 'disable'): Promise<void> {
    const acked = new Promise<void>((resolve) => this.waiting.push(resolve));
    (this.child.stdio[3] as NodeJS.WritableStream).write(`${name}\n`);
    const timer = new AbortController();
    const late = delay(ACK_TIMEOUT_MS, undefined, { signal: timer.signal }).then(() => {
      throw new Error(`perf record did not acknowledge "${name}" within ${ACK_TIMEOUT_MS / 1000} s: ${this.stderr.trim()}`);
    });
    late.catch(() => {}); // aborted once the race is over
    try {
      await Promise.race([acked, this.failed, late]);
    } finally {
      timer.abort();
    }
  }

  /** Stops perf (SIGINT, as ^C would) and waits for it to write its file; a perf that does not stop is killed. */
  async finish(): Promise<void> {
    this.child.kill('SIGINT');
    const kill = setTimeout(() => this.child.kill('SIGKILL'), FINISH_TIMEOUT_MS);
    try {
      await this.exited;
    } finally {
      clearTimeout(kill);
    }
  }
}

/** The PostgreSQL backends connected as `applicationName`: the ones serving one side's server. */
async function backendsOf(applicationName: string): Promise<number[]> {
  const rows = await queryPostgres<{ pid: number }>(PG_ADMIN_URL, 'select pid from pg_stat_activity where application_name = $1', [applicationName]);
  return rows.map((row) => row.pid);
}

/**
 * The rows a batch in `table` among those created within `window` (both sides stamp rows with
 * ISO times, as they accept them). Each batch is one transaction, so its rows share an xmin. What
 * a batch pays once (executor start and finish, the commit) is shared by its rows.
 */
async function rowsABatchOf(url: string, table: 'submissions' | 'reference_group', window: [string, string]): Promise<number> {
  const [counted] = await queryPostgres<{ rows: number; batches: number }>(
    url,
    `select count(*)::int as rows, count(distinct xmin::text)::int as batches from ${table} where created_at between $1 and $2`,
    window,
  );
  return counted!.batches === 0 ? 0 : counted!.rows / counted!.batches;
}

/** The samples of `pids` in `file`, in nanoseconds of CPU (perf's cpu-clock periods), by part. */
async function cpuTimeOf(file: string, pids: number[]): Promise<{ totalNs: number; partNs: number[] }> {
  const script = spawn('perf', ['script', '-i', file, '--pid', pids.join(','), '-F', 'comm,period,ip,sym'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const partNs = PARTS.map(() => 0);
  let totalNs = 0;
  let period = 0;
  let onStack = new Set<string>();
  const endSample = () => {
    totalNs += period;
    PARTS.forEach(([, fn], index) => {
      if (onStack.has(fn)) partNs[index]! += period;
    });
  };
  // A sample is a line "postgres <period>", then its stack, a frame a line ("<address> <symbol>").
  for await (const line of createInterface({ input: script.stdout! })) {
    if (line.length === 0) continue;
    if (!/^\s/.test(line)) {
      endSample();
      period = Number(line.trim().split(/\s+/)[1]) || 0;
      onStack = new Set();
    } else {
      const symbol = line.trim().split(/\s+/)[1];
      if (symbol !== undefined) onStack.add(symbol);
    }
  }
  endSample();
  const [code] = await once(script, 'close');
  if (code !== 0) throw new Error(`perf script exited with ${code}`);
  return { totalNs, partNs };
}

/** Loads one side (after a warm-up) with perf sampling, then takes its PostgreSQL samples apart. */
async function profileSide(options: ProfileOptions, dir: string, side: 'formgate' | 'limit'): Promise<Profile> {
  let database: BenchDatabase | undefined;
  let server: Child | undefined;
  const file = join(dir, `${side}.data`);
  try {
    database = await freshDatabase('postgres');
    // The servers' pools connect with it, so their backends can be told from any other's.
    const applicationName = `formgate_profile_${process.pid}_${side}`;
    const url = `${database.url}&application_name=${applicationName}`;
    let path = '/v1/submit/frm_profile';
    if (side === 'formgate') {
      const { handle, accountId, forms } = await benchAccount(database.url, 1);
      try {
        path = `/v1/submit/${(await forms.createForm(accountId, { name: 'Bench' })).id}`;
      } finally {
        await handle.close();
      }
      server = await startFormgate(url);
    } else {
      server = await startReference('group', url);
    }
    const [body, contentType] = BODIES[options.body];
    const run = async (seconds: number) => {
      const result = await load({ url: `${server!.url}${path}`, body, contentType, seconds });
      if (result.errors > 0) throw new Error(`${side}: ${result.errors} requests failed (not 2xx, errors or timeouts)`);
      return result;
    };
    await run(WARM_UP_SECONDS);
    const perf = new PerfRecording(file, options.frequency);
    let measured;
    let measuredWindow: [string, string];
    try {
      await perf.command('enable');
      const from = new Date().toISOString();
      measured = await run(options.seconds);
      measuredWindow = [from, new Date().toISOString()];
      await perf.command('disable');
    } finally {
      await perf.finish();
    }
    // Asked while the server still holds its connections.
    const backends = await backendsOf(applicationName);
    if (backends.length === 0) throw new Error(`${side}: no PostgreSQL backend connected as ${applicationName}`);
    const rowsABatch = await rowsABatchOf(database.url, side === 'formgate' ? 'submissions' : 'reference_group', measuredWindow);
    return { rows: measured.ok, rps: measured.rps, rowsABatch, ...(await cpuTimeOf(file, backends)) };
  } finally {
    await server?.stop();
    await database?.drop();
  }
}

function printReport(options: ProfileOptions, formgate: Profile, limit: Profile): void {
  const perRow = (profile: Profile, ns: number) => `${(ns / 1000 / profile.rows).toFixed(1)} (${((100 * ns) / profile.totalNs).toFixed(1)}%)`;
  const lines = [
    `profile on postgres: ${options.body} body, 50 connections, ${options.seconds} s each after a ${WARM_UP_SECONDS} s warm-up, perf at ${options.frequency} Hz`,
    `Formgate: ${formgate.rps} submissions/s, ${formgate.rowsABatch.toFixed(1)} rows a batch; the limit: ${limit.rps}, ${limit.rowsABatch.toFixed(1)} (${(formgate.rps / limit.rps).toFixed(2)})`,
    '',
    "| PostgreSQL's CPU a row, µs (share) | Formgate | the limit |",
    '|---|---|---|',
    `| all of it (the backends that served the load) | ${(formgate.totalNs / 1000 / formgate.rows).toFixed(1)} | ${(limit.totalNs / 1000 / limit.rows).toFixed(1)} |`,
    ...PARTS.map(([label], index) => `| ${label} | ${perRow(formgate, formgate.partNs[index]!)} | ${perRow(limit, limit.partNs[index]!)} |`),
    '',
    'Each part counts a function and all it calls; a · part lies within the one above it.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Profiles Formgate's side, then the limit's, and prints them side by side. */
export async function runProfile(options: ProfileOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'formgate-profile-'));
  madeForRun('dir', dir);
  try {
    const formgate = await profileSide(options, dir, 'formgate');
    const limit = await profileSide(options, dir, 'limit');
    if (formgate.totalNs === 0 || limit.totalNs === 0) throw new Error('perf recorded no samples of the backends that served the load (is PostgreSQL on this machine?)');
    printReport(options, formgate, limit);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    removedFromRun('dir', dir);
  }
}
