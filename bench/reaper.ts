import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * What a bench run makes (server processes, PostgreSQL schemas, SQLite directories) is told to a
 * reaper process (bench/reaper-process.ts) as it is made and as it is removed. The reaper outlives
 * this process, so a run killed with SIGKILL, which runs no `finally`, still leaves nothing behind.
 * Started on the first thing made; a run that makes nothing starts none.
 */
export type Made = 'pid' | 'schema' | 'dir';

let reaper: ChildProcess | undefined;

/** `detail` is what removing it needs besides its name: a schema's database URL. */
export function madeForRun(kind: Made, name: string | number, detail?: string): void {
  tell(`+${kind} ${name}${detail === undefined ? '' : ` ${detail}`}`);
}

export function removedFromRun(kind: Made, name: string | number): void {
  tell(`-${kind} ${name}`);
}

function tell(line: string): void {
  reaper ??= startReaper();
  reaper.stdin!.write(`${line}\n`);
}

function startReaper(): ChildProcess {
  // Detached, in a process group of its own: a kill of the run's group does not take it along.
  // Its stdin is the only end of the pipe this process holds (Node opens pipes close-on-exec, so
  // the servers do not inherit it): it closes when this process exits, however it exits.
  const child = spawn(process.execPath, [fileURLToPath(new URL('./reaper-process.js', import.meta.url))], {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  child.unref();
  (child.stdin as Socket).unref();
  // A reaper gone (it cannot be, short of a kill of its own) costs only a killed run's cleanup.
  child.stdin!.on('error', () => {});
  return child;
}
