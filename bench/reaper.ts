import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { randomBase62 } from '../src/platform/lib/ids.js';
import { typescriptEntry } from './tsx.js';

/**
 * What a bench run makes is told to a reaper process (bench/reaper-process.ts), which outlives
 * this process: a run killed with SIGKILL, which runs no `finally`, still leaves nothing behind.
 * - Databases (PostgreSQL schemas, SQLite directories) are told before they are made, and again
 *   once dropped.
 * - Processes carry RUN_MARK_NAME in their environment from their first instruction on; the reaper
 *   kills whatever carries it. A PID could only be told once the process exists, and a kill in
 *   between would leave that one running.
 * Started on the first database made or process started; a run that makes nothing starts none.
 */
export const MADE_KINDS = ['schema', 'dir'] as const;
export type Made = (typeof MADE_KINDS)[number];

/** The environment variable that marks a run's processes; RUN_TOKEN is this run's value of it. */
export const RUN_MARK_NAME = 'FORMGATE_BENCH_RUN';
const RUN_TOKEN = randomBase62(16);
/** A schema can only be dropped once the killed servers' backends have let go of it; past this the reaper gives up rather than linger. */
const GIVE_UP_AFTER_MS = 30_000;

let reaper: ChildProcess | undefined;

/** `detail` is what removing it needs besides its name: a schema's database URL. */
export function madeForRun(kind: Made, name: string, detail?: string): void {
  tell(`+${kind} ${name}${detail === undefined ? '' : ` ${detail}`}`);
}

export function removedFromRun(kind: Made, name: string): void {
  tell(`-${kind} ${name}`);
}

/** The environment of a process this run starts: the reaper knows it by the mark. */
export function markedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  reaper ??= startReaper();
  return { ...env, [RUN_MARK_NAME]: RUN_TOKEN };
}

function tell(line: string): void {
  reaper ??= startReaper();
  reaper.stdin!.write(`${line}\n`);
}

function startReaper(): ChildProcess {
  // Detached, in a process group of its own: a kill of the run's group does not take it along.
  // Its stdin is the only end of the pipe this process holds (Node opens pipes close-on-exec, so
  // the servers do not inherit it): it closes when this process exits, however it exits.
  const child = spawn(process.execPath, [...typescriptEntry(new URL('./reaper-process.ts', import.meta.url)), RUN_TOKEN, String(GIVE_UP_AFTER_MS)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  child.unref();
  (child.stdin as Socket).unref();
  // A reaper gone (it cannot be, short of a kill of its own) costs only a killed run's cleanup.
  child.stdin!.on('error', () => {});
  return child;
}
