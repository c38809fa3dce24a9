// The bench's reaper (bench/reaper.ts starts it): a detached process that reads what a bench run
// has made from its stdin and, when that pipe closes, removes whatever was not removed already.
// A run that ends normally has removed everything, so the reaper has nothing to do; one killed
// with SIGKILL (a CI cut, an operator's kill -9) closes the pipe all the same, being dead, and its
// servers, PostgreSQL schemas and SQLite files go with it instead of lingering.
//
// Arguments: the run's token (its processes carry RUN_MARK_NAME=token in their environment), and
// how many milliseconds to try before giving up.
// Lines: `+schema bench_x postgres://…` (the database it is in) / `-schema bench_x`,
// `+dir /tmp/…` / `-dir /tmp/…`.
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { allPids, environOf, isRunning } from './proc.js';
import { MADE_KINDS, RUN_MARK_NAME, type Made } from './reaper.js';

const [token, giveUpAfter] = process.argv.slice(2);
const mark = `${RUN_MARK_NAME}=${token}`;
const giveUpAfterMs = Number(giveUpAfter);
// What is still there, by `kind name`, each with what removing it needs (a schema: its database's URL).
const leftovers = new Map<string, { kind: Made; name: string; detail: string }>();
const LINE = new RegExp(`^([+-])(${MADE_KINDS.join('|')}) (\\S+)(?: (.+))?$`);

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const match = LINE.exec(line);
    if (!match) return;
    const [, sign, kind, name, detail] = match as unknown as [string, '+' | '-', Made, string, string | undefined];
    if (sign === '+') leftovers.set(`${kind} ${name}`, { kind, name, detail: detail ?? '' });
    else leftovers.delete(`${kind} ${name}`);
  })
  .on('close', () => {
    setTimeout(() => {
      for (const what of leftovers.keys()) leftBehind(what, `gave up after ${giveUpAfterMs} ms`);
      process.exit(1);
    }, giveUpAfterMs).unref();
    void removeLeftovers().then((failures) => process.exit(failures === 0 ? 0 : 1));
  });

/** Removes each leftover on its own, so one that fails leaves the rest still removed; the failures' count. */
async function removeLeftovers(): Promise<number> {
  const marked = allPids().filter((pid) => pid !== process.pid && isRunning(pid) && environOf(pid).includes(mark));
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
  let failures = 0;
  for (const [what, { kind, name, detail }] of [...leftovers]) {
    try {
      if (kind === 'dir') rmSync(name, { recursive: true, force: true });
      else await dropSchema(name, detail);
    } catch (error) {
      failures++;
      leftBehind(what, (error as Error).message);
    }
    leftovers.delete(what);
  }
  return failures;
}

function leftBehind(what: string, why: string): void {
  process.stderr.write(`bench reaper: ${what} left behind: ${why}\n`);
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
