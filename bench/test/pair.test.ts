import { readdirSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { isRunning } from '../proc.js';
import { atRoot } from '../root.js';
import { postgresAdminUrl } from './helpers/database.js';
import { benchSchemas as schemasIn, expectNothingLeftBehind, liveChildren } from './helpers/left-behind.js';
import { PROCESS_TEST_TIMEOUT_MS, benchScript, runToExit, startToExit } from './helpers/process.js';

// `npm run bench:pair` on SQLite and on PostgreSQL: SQLite files go under a private TMPDIR,
// PostgreSQL schemas into the test database, so what a run leaves behind can be seen.
const PAIR = benchScript('pair.ts');
const DIALECTS = ['sqlite', 'postgres'] as const;
const quick = (dialect: string) => ['--db', dialect, '--rounds', '2', '--seconds', '1'];
// A failing run: one round is enough for A's load, then B's, to have started.
const failing = (dialect: string) => ['--db', dialect, '--rounds', '1', '--seconds', '1'];

const benchSchemas = () => schemasIn(postgresAdminUrl);
// No SQLite file, no PostgreSQL schema is left after a run, whichever database it ran on.
const { tmp, env, schemasBefore } = expectNothingLeftBehind('formgate-bench-pair-', benchSchemas);

// A run of quick()'s length took 12–16 s on a 2-core machine beside other test files.
const runPair = (args: string[]) => runToExit([...PAIR, ...args], { ...env(), BENCH_DATABASE_URL: postgresAdminUrl }, { limitMs: 170_000 });

/** The databases a run has made so far: its SQLite directories, or its PostgreSQL schemas. */
async function madeDatabases(dialect: (typeof DIALECTS)[number]): Promise<string[]> {
  return dialect === 'postgres' ? (await benchSchemas()).filter((name) => !schemasBefore().includes(name)) : readdirSync(tmp());
}

/** Whether one of the child's arguments (its script) ends with `ending`. */
const runs = (child: { command: string[] }, ending: string) => child.command.some((arg) => arg.endsWith(ending));

describe('npm run bench:pair', () => {
  it.each([
    [['--rounds', '0'], /--rounds takes a whole number above 0, not "0"/],
    [['--db', 'mysql'], /--db takes postgres or sqlite, not "mysql"/],
    [['--body', 'xml'], /--body takes json or urlencoded, not "xml"/],
    [['--b-env', 'SUBMIT_RATE_LIMIT_PER_MINUTE'], /--b-env takes NAME=value, not "SUBMIT_RATE_LIMIT_PER_MINUTE"/],
    [['--b-env', 'DATABASE_URL=sqlite::memory:'], /--b-env cannot set DATABASE_URL/],
    [['--b-dist', 'no-such-dir'], /--b-dist: .*no-such-dir\/src\/server\.js does not exist/],
    [['--b-sq', 'select 1'], /Unknown option '--b-sq'/],
  ])('refuses %j before anything starts', { timeout: 180_000 }, async (args, message) => {
    const result = await runPair(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^usage: npm run bench:pair \[-- --db /m);
    expect(result.stdout).toBe('');
  });
});

// The environment reaches B's process the same way whichever database it runs on: one database.
it("gives B's environment to B alone: a rate limit there fails B's load, not A's", { timeout: 180_000 }, async () => {
  const result = await runPair([...failing('sqlite'), '--b-env', 'SUBMIT_RATE_LIMIT_PER_MINUTE=1']);
  expect(result.code).toBe(1);
  // A is loaded first, so had the limit reached A its load would have failed first.
  expect(result.stderr).toMatch(/^bench:pair failed: B: \d+ requests failed/m);
});

describe.each(DIALECTS)('npm run bench:pair on %s', (dialect) => {
  it('loads A, B and the limit in interleaved rounds and prints B against A', { timeout: 180_000 }, async () => {
    // B is this build again, named as another build's tree, with the spam index dropped.
    const result = await runPair([...quick(dialect), '--b-dist', atRoot('dist'), '--b-sql', 'drop index submissions_form_spam_newest_idx']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`pair on ${dialect}: 2 rounds of 1 s, json body`);
    expect(result.stdout).toMatch(/^A: this build, as it is$/m);
    // --b-dist naming this very tree is not a change: only the SQL is.
    expect(result.stdout).toMatch(/^B: after: drop index submissions_form_spam_newest_idx$/m);
    for (const name of ['A', 'B', 'the limit']) expect(result.stdout).toMatch(new RegExp(`^\\| ${name} \\| [1-9]\\d* \\| \\d+\\.\\d\\d \\| \\d+ / \\d+ / \\d+, \\d+% \\| `, 'm'));
    expect(result.stdout).toMatch(/^B \/ A per round: \d+\.\d\d \d+\.\d\d$/m);
    expect(result.stdout).toMatch(/^B \/ A: median \d+\.\d\d, range \d+\.\d\d–\d+\.\d\d$/m);
  });

  it("fails the run when B's SQL fails, and leaves no database behind", { timeout: 180_000 }, async () => {
    const result = await runPair([...failing(dialect), '--b-sql', 'drop index no_such_index']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bench:pair failed: .*no_such_index/m);
    expect(result.stdout).toBe('');
  });

  it("runs B's SQL on B's database alone: a renamed table fails B's load, not A's", { timeout: 180_000 }, async () => {
    const result = await runPair([...failing(dialect), '--b-sql', 'alter table submissions rename to submissions_elsewhere']);
    expect(result.code).toBe(1);
    // A is loaded first: had the statement reached A's database, A's load would have failed first.
    expect(result.stderr).toMatch(/^bench:pair failed: B: \d+ requests failed/m);
  });

  it('takes its servers and databases along when it is killed with SIGKILL, which runs no cleanup of its own', { timeout: 180_000 }, async () => {
    // 100 rounds: the kill lands long before the end. The run's servers and its reaper hold its
    // stderr, so `finished` waits for the last of them.
    const { child: run, finished } = startToExit([...PAIR, '--db', dialect, '--rounds', '100'], { ...env(), BENCH_DATABASE_URL: postgresAdminUrl }, { limitMs: 170_000 });
    let made: Array<{ pid: number; command: string[] }> = [];
    try {
      await vi.waitFor(
        () => {
          made = liveChildren(run.pid!);
          // A and B (the build's dist/src/server.js), and the limit (bench/reference-server.ts)
          expect(made.filter((child) => runs(child, 'dist/src/server.js'))).toHaveLength(2);
          expect(made.filter((child) => runs(child, 'bench/reference-server.ts'))).toHaveLength(1);
        },
        { timeout: 60_000, interval: 50 },
      );
      expect(made.filter((child) => runs(child, 'bench/reaper-process.ts'))).toHaveLength(1);
      expect(await madeDatabases(dialect)).toHaveLength(3);

      run.kill('SIGKILL');
      // The reaper is among them, and ends once it has dropped what the run made.
      await vi.waitFor(() => expect(made.filter((child) => isRunning(child.pid))).toEqual([]), { timeout: 20_000, interval: 50 });
      const result = await finished;
      expect(result.code).toBe('SIGKILL');
      expect(result.stderr).toBe('');
      expect(await madeDatabases(dialect)).toEqual([]);
    } finally {
      // A failed expectation leaves neither the run nor its servers to the rest of the tests.
      run.kill('SIGKILL');
      for (const child of made.filter((child) => isRunning(child.pid))) process.kill(child.pid, 'SIGKILL');
    }
  });
});
