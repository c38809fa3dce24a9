// The bench's reaper (bench/reaper.ts starts it): a detached process that reads what a bench run
// has made from its stdin and, when that pipe closes, removes whatever was not removed already.
// A run that ends normally has removed everything, so the reaper has nothing to do; one killed
// with SIGKILL (a CI cut, an operator's kill -9) closes the pipe all the same, being dead, and its
// servers, PostgreSQL schemas and SQLite files go with it instead of lingering.
//
// Argument: the run's token (its processes carry RUN_MARK_NAME=token in their environment).
// Lines: `+schema bench_x postgres://…` (the database it is in) / `-schema bench_x`,
// `+dir /tmp/…` / `-dir /tmp/…`.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { MADE_KINDS, RUN_MARK_NAME, type Made } from './reaper.js';

const mark = `${RUN_MARK_NAME}=${process.argv[2]}`;
// What is still there, each with what removing it needs (a schema: its database's URL).
const made = Object.fromEntries(MADE_KINDS.map((kind) => [kind, new Map<string, string>()])) as Record<Made, Map<string, string>>;
const LINE = new RegExp(`^([+-])(${MADE_KINDS.join('|')}) (\\S+)(?: (.+))?$`);

// A schema can only be dropped once the killed servers' backends have let go of it; past this the
// reaper gives up rather than linger itself.
const GIVE_UP_AFTER_MS = 30_000;

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const match = LINE.exec(line);
    if (!match) return;
    const [, sign, kind, name, detail] = match as unknown as [string, '+' | '-', Made, string, string | undefined];
    if (sign === '+') made[kind].set(name, detail ?? '');
    else made[kind].delete(name);
  })
  .on('close', () => {
    setTimeout(() => process.exit(1), GIVE_UP_AFTER_MS).unref();
    void removeLeftovers().then((failures) => process.exit(failures === 0 ? 0 : 1));
  });

/** Removes each leftover on its own, so one that fails leaves the rest still removed; the failures' count. */
async function removeLeftovers(): Promise<number> {
  const marked = runningPids().filter((pid) => pid !== process.pid && environOf(pid).includes(mark));
  for (const pid of marked) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }
  // A signal is delivered, not obeyed at once: a server starting up could still create its
  // SQLite files after an rmSync has emptied the directory, which would then fail (ENOTEMPTY).
  while (marked.some(isRunning)) await delay(5);
  const removals = [
    ...[...made.dir.keys()].map((dir) => ({ what: dir, remove: async () => rmSync(dir, { recursive: true, force: true }) })),
    ...[...made.schema].map(([schema, url]) => ({ what: `schema ${schema}`, remove: () => dropSchema(schema, url) })),
  ];
  let failures = 0;
  for (const { what, remove } of removals) {
    try {
      await remove();
    } catch (error) {
      failures++;
      process.stderr.write(`bench reaper: ${what} left behind: ${(error as Error).message}\n`);
    }
  }
  return failures;
}

function runningPids(): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number).filter(isRunning);
}

/** A process's environment, NUL-separated; empty if it is gone or not ours to read. */
function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Neither gone nor a zombie (an orphan's zombie waits for an init that may never reap it). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function dropSchema(schema: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
  } finally {
    await client.end();
  }
}
