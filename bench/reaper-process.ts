// The bench's reaper (bench/reaper.ts starts it): a detached process that reads what a bench run
// has made from its stdin and, when that pipe closes, removes whatever was not removed already.
// A run that ends normally has removed everything, so the reaper has nothing to do; one killed
// with SIGKILL (a CI cut, an operator's kill -9) closes the pipe all the same, being dead, and its
// servers, PostgreSQL schemas and SQLite files go with it instead of lingering.
//
// Lines: `+pid 123` / `-pid 123`, `+schema bench_x postgres://…` (the database it is in) /
// `-schema bench_x`, `+dir /tmp/…` / `-dir /tmp/…`.
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import pg from 'pg';

// What is still there, each with what removing it needs (a schema: its database's URL).
const made = { pid: new Map<string, string>(), schema: new Map<string, string>(), dir: new Map<string, string>() };
type Kind = keyof typeof made;

// A schema can only be dropped once the killed servers' backends have let go of it; past this the
// reaper gives up rather than linger itself.
const GIVE_UP_AFTER_MS = 30_000;

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const match = /^([+-])(pid|schema|dir) (\S+)(?: (.+))?$/.exec(line);
    if (!match) return;
    const [, sign, kind, name, detail] = match as unknown as [string, '+' | '-', Kind, string, string | undefined];
    if (sign === '+') made[kind].set(name, detail ?? '');
    else made[kind].delete(name);
  })
  .on('close', () => {
    setTimeout(() => process.exit(1), GIVE_UP_AFTER_MS).unref();
    void removeLeftovers().then((failures) => process.exit(failures === 0 ? 0 : 1));
  });

/** Removes each leftover on its own, so one that fails leaves the rest still removed; the failures' count. */
async function removeLeftovers(): Promise<number> {
  for (const pid of made.pid.keys()) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }
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

async function dropSchema(schema: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
  } finally {
    await client.end();
  }
}
