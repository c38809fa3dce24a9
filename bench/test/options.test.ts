import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROCESS_TEST_TIMEOUT_MS, benchScript, runToExit } from './helpers/process.js';

// The bench writes bench/results.json and BENCHMARKS.md in the checkout, or where
// BENCH_OUTPUT_DIR says: each case points it at a fresh directory, so a refusal can be seen to
// write nothing, and a re-render reads only the results the case wrote.
let dir: string;

const runBench = (args: string[]) => runToExit([...benchScript('run.ts'), ...args], { BENCH_OUTPUT_DIR: dir });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-bench-options-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run bench: its options', () => {
  // `--only none` with each mistake: were the mistake ignored, the run would write its report.
  it.each([
    [['--only', 'none', '--soak-secs', '10'], /Unknown option '--soak-secs'/],
    [['--only', 'none,spam-filter'], /unknown scenario or database: "spam-filter"$/m],
    [['--only', 'none', '--db', 'postgresql'], /unknown scenario or database: "postgresql"$/m],
    [['--only', 'none,'], /unknown scenario or database: ""$/m],
    [['--only', 'none', '--seconds', 'abc'], /--seconds takes a whole number above 0, not "abc"/],
    [['--only', 'none', '--rounds', '0'], /--rounds takes a whole number above 0/],
    [['--only'], /argument missing/],
  ])('refuses %j before it runs or writes anything', { timeout: PROCESS_TEST_TIMEOUT_MS }, async (args, message) => {
    const result = await runBench(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^usage: npm run bench \[-- --only /m);
    expect(existsSync(join(dir, 'bench'))).toBe(false);
    expect(existsSync(join(dir, 'BENCHMARKS.md'))).toBe(false);
  });

  it('prints its usage for --help, and runs nothing', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const result = await runBench(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage: npm run bench \[-- --only submit,.*\|none --db sqlite,postgres .*--soak-seconds 120\]$/m);
    expect(existsSync(join(dir, 'BENCHMARKS.md'))).toBe(false);
  });

  it('renders BENCHMARKS.md again from the kept results alone for --only none', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    mkdirSync(join(dir, 'bench'));
    const kept = [
      { db: 'sqlite', group: 'submit', scenario: 'submit JSON', metric: 'req/s', value: '1', reference: '2', ratio: '0.50', target: '≥ 0.60', pass: false, measuredOn: '2026-01-01', machine: 'a machine' },
      { db: 'sqlite', group: 'submit', scenario: 'memory', metric: 'idle RSS (MB)', value: '80', reference: '80', ratio: '1.00', target: '< 100 MB', pass: true, measuredOn: '2026-01-01', machine: 'a machine' },
    ];
    writeFileSync(join(dir, 'bench/results.json'), JSON.stringify(kept));
    const result = await runBench(['--only', 'none', '--db', 'sqlite']);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'bench/results.json'), 'utf8'))).toEqual(kept);
    const report = readFileSync(join(dir, 'BENCHMARKS.md'), 'utf8');
    expect(report).toContain('| sqlite | submit JSON | req/s | 1 | 2 | 0.50 | ≥ 0.60 MISS | 2026-01-01, a machine |');
    expect(report).toContain('This table holds 2 targets, 1 of them met.');
    expect(report).toContain('- sqlite, submit JSON: req/s: 0.50 against ≥ 0.60 (2026-01-01).');
    // The table and what it takes to read and remake it, nothing appended after.
    expect(report.split('\n## ').map((section) => section.split('\n')[0])).toEqual(['# Benchmarks', 'Method', 'References', 'Targets', 'Results', 'How to run']);
  });
});
