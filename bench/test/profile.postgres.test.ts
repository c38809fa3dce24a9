import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isRunning } from '../proc.js';
import { benchSchemas as schemasIn, expectNothingLeftBehind, liveChildren } from './helpers/left-behind.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { PROCESS_TEST_TIMEOUT_MS, benchScript, runToExit, startToExit } from './helpers/process.js';

// `npm run bench:profile` against this project's PostgreSQL (it profiles PostgreSQL alone, hence a
// *.postgres test): its schemas go into a database of this file's own, where bench:pair's test,
// which may run meanwhile, makes none, and perf's file under a private TMPDIR, so what a run leaves
// behind can be seen. perf samples the whole machine, the rest of the suite included; the
// assertions hold whatever else runs.
const PROFILE = benchScript('profile.ts');
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const benchSchemas = () => schemasIn(database.url);
// No perf file, no PostgreSQL schema is left after a run.
const { tmp, env: tmpEnv, schemasBefore } = expectNothingLeftBehind('formgate-bench-profile-', benchSchemas);

const env = () => ({ ...tmpEnv(), BENCH_DATABASE_URL: database.url });
const runProfile = (args: string[], extraEnv: Record<string, string> = {}) => runToExit([...PROFILE, ...args], { ...env(), ...extraEnv }, { limitMs: 170_000 });

/** A row of the printed table: Formgate's and the limit's µs a row and shares, by the row's label. */
function tableRow(stdout: string, label: string): { formgate: number; formgateShare: number; limit: number; limitShare: number } {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^\\| ${escaped} \\| (\\d+\\.\\d) \\((\\d+\\.\\d)%\\) \\| (\\d+\\.\\d) \\((\\d+\\.\\d)%\\) \\|$`, 'm').exec(stdout);
  expect(match, `the row "${label}" in:\n${stdout}`).not.toBeNull();
  const [formgate, formgateShare, limit, limitShare] = match!.slice(1).map(Number) as [number, number, number, number];
  return { formgate, formgateShare, limit, limitShare };
}

describe('npm run bench:profile', () => {
  it.each([
    [['--seconds', '0'], /--seconds takes a whole number above 0, not "0"/],
    [['--frequency', 'fast'], /--frequency takes a whole number above 0, not "fast"/],
    [['--frequency', '20000'], /--frequency takes at most 10000 \(samples a second on each CPU\), not 20000/],
    [['--body', 'xml'], /--body takes json or urlencoded, not "xml"/],
    [['--db', 'sqlite'], /Unknown option '--db'/],
  ])('refuses %j before anything starts', { timeout: 180_000 }, async (args, message) => {
    const result = await runProfile(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^usage: npm run bench:profile \[-- --seconds /m);
    expect(result.stdout).toBe('');
  });

  it('says perf is missing, before it starts a server or makes a schema', { timeout: 180_000 }, async () => {
    const result = await runProfile(['--seconds', '1'], { PATH: join(tmp(), 'no-such-bin') });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bench:profile failed: perf is not installed or does not run/m);
    expect(result.stdout).toBe('');
  });

  it("takes PostgreSQL's CPU a row apart, Formgate's statement beside the limit's", { timeout: 180_000 }, async () => {
    // Enough samples that one stray sample is no share to speak of, and that a small part is seen
    // at all on a loaded machine: a GIN insert is ~3 µs a row, so at a few hundred rows a second
    // 999 Hz can give it no sample; 4999 Hz gives it some tens.
    const result = await runProfile(['--seconds', '2', '--frequency', '4999']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('profile on postgres: json body, 50 connections, 2 s each after a 3 s warm-up, perf at 4999 Hz');
    const summary = /^Formgate: [1-9]\d* submissions\/s, (\d+\.\d) rows a batch; the limit: [1-9]\d*, (\d+\.\d) \(\d+\.\d\d\)$/m.exec(result.stdout);
    expect(summary, result.stdout).not.toBeNull();
    // 50 connections: the requests that arrive while a batch is written share the next one.
    expect(Number(summary![1])).toBeGreaterThan(1);
    expect(Number(summary![2])).toBeGreaterThan(1);
    const all = /^\| all of it \(the backends that served the load\) \| (\d+\.\d) \| (\d+\.\d) \|$/m.exec(result.stdout);
    expect(all).not.toBeNull();
    expect(Number(all![1])).toBeGreaterThan(0);
    expect(Number(all![2])).toBeGreaterThan(0);
    // Only Formgate's table has the search index: its expression is found on Formgate's stacks,
    // and hardly on the limit's (whose only index is a B-tree on plain text).
    const expression = tableRow(result.stdout, "the search index's expression (FormIndexDatum)");
    expect(expression.formgateShare).toBeGreaterThan(5);
    expect(expression.limitShare).toBeLessThan(2);
    const gin = tableRow(result.stdout, 'GIN inserts (gininsert)');
    expect(gin.formgate).toBeGreaterThan(0);
    expect(gin.limitShare).toBeLessThan(2);
    // Both commit every batch and insert into a B-tree.
    for (const label of ['commit (CommitTransactionCommand)', 'B-tree inserts (btinsert)']) {
      const row = tableRow(result.stdout, label);
      expect(row.formgate).toBeGreaterThan(0);
      expect(row.limit).toBeGreaterThan(0);
    }
  });

  it('takes perf, its servers and its schemas along when it is killed with SIGKILL', { timeout: 180_000 }, async () => {
    // 60 s of load: the kill lands long before the end, once perf is sampling Formgate.
    const { child: run, finished } = startToExit([...PROFILE, '--seconds', '60'], env(), { limitMs: 170_000 });
    let made: Array<{ pid: number; command: string[] }> = [];
    try {
      await vi.waitFor(
        () => {
          made = liveChildren(run.pid!);
          // `perf record`, not the `perf --version` the run checks perf with first.
          expect(made.filter((child) => child.command[0] === 'perf' && child.command[1] === 'record')).toHaveLength(1);
        },
        { timeout: 60_000, interval: 50 },
      );
      expect(made.filter((child) => child.command.some((arg) => arg.endsWith('server.js')))).toHaveLength(1);
      expect((await benchSchemas()).filter((name) => !schemasBefore().includes(name))).toHaveLength(1);

      run.kill('SIGKILL');
      await vi.waitFor(() => expect(made.filter((child) => isRunning(child.pid))).toEqual([]), { timeout: 20_000, interval: 50 });
      const result = await finished;
      expect(result.code).toBe('SIGKILL');
      // The reaper holds the run's stderr until it is done, so by now the schema is dropped.
      expect(await benchSchemas()).toEqual(schemasBefore());
    } finally {
      // A failed expectation leaves neither the run nor perf to the rest of the tests.
      run.kill('SIGKILL');
      for (const child of made.filter((child) => isRunning(child.pid))) process.kill(child.pid, 'SIGKILL');
    }
  });
});
