import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { queryPostgres } from '../../lib.js';
import { allPids, commandLineOf, readProcStat } from '../../proc.js';

// What the bench scripts' tests (npm run bench:pair, bench:profile) look at to see what a run made
// and whether it left anything behind.

/** The bench's PostgreSQL schemas (bench_…) in the database of `url`, by name. */
export async function benchSchemas(url: string): Promise<string[]> {
  const rows = await queryPostgres<{ name: string }>(url, `select nspname as name from pg_namespace where nspname like 'bench\\_%' order by 1`);
  return rows.map((row) => row.name);
}

/** The running processes whose parent is `parentPid`, with their command lines. */
export function liveChildren(parentPid: number): Array<{ pid: number; command: string[] }> {
  const children: Array<{ pid: number; command: string[] }> = [];
  for (const pid of allPids()) {
    const stat = readProcStat(pid);
    if (stat?.ppid !== parentPid || stat.state === 'Z') continue; // gone, another's, or a zombie
    const command = commandLineOf(pid);
    if (command.length > 0) children.push({ pid, command }); // empty: it ended meanwhile
  }
  return children;
}

/**
 * Gives each test of the calling file a private TMPDIR for its run (SQLite files, perf's file),
 * and after it expects that directory empty and `schemas()` as they were before: every run, passed
 * or failed, removes what it made. `env()` is what a run is started with to use that directory.
 */
export function expectNothingLeftBehind(tmpPrefix: string, schemas: () => Promise<string[]>): { tmp(): string; env(): Record<string, string>; schemasBefore(): string[] } {
  let tmp = '';
  let before: string[] = [];
  beforeEach(async () => {
    tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
    before = await schemas();
  });
  afterEach(async () => {
    expect(readdirSync(tmp)).toEqual([]);
    expect(await schemas()).toEqual(before);
    rmSync(tmp, { recursive: true, force: true });
  });
  return {
    tmp: () => tmp,
    // tsx keeps its compile cache under TMPDIR too: off, it leaves only what the run itself made.
    env: () => ({ TMPDIR: tmp, TSX_DISABLE_CACHE: '1' }),
    schemasBefore: () => before,
  };
}
