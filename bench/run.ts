// `npm run bench [-- --only submit,soak --db postgres …]` (`-- --help` lists the options): runs each
// scenario beside its reference in the same invocation and rewrites BENCHMARKS.md with figures and
// ratios (bench/report.ts; `--only none` runs nothing and renders it again from bench/results.json).
// This file checks the options; run.main.ts, imported once they are sound, runs the scenarios.
import { parseArgs } from 'node:util';
import type { BenchDialect } from './lib.js';
import { parseOptionsOrExit, wholeNumberOption } from './options.js';

/** The scenarios, in the order they run and are listed. */
const GROUPS = ['submit', 'paging', 'spam-checks', 'hooks', 'search', 'forms-list', 'purge', 'email', 'export', 'integrations', 'confirmations', 'soak', 'rejected', 'uploads'];
const DIALECTS: readonly BenchDialect[] = ['sqlite', 'postgres'];
const OPTIONS = {
  only: { type: 'string', default: GROUPS.join(',') },
  db: { type: 'string', default: DIALECTS.join(',') },
  seconds: { type: 'string', default: '3' },
  rounds: { type: 'string', default: '3' },
  rows: { type: 'string', default: '1000000' },
  'purge-rows': { type: 'string', default: '100000' },
  'export-rows': { type: 'string', default: '1000000' },
  'soak-seconds': { type: 'string', default: '120' },
  help: { type: 'boolean', default: false },
} as const;
const USAGE = `usage: npm run bench [-- ${Object.entries(OPTIONS)
  .filter(([name]) => name !== 'help')
  .map(([name, { default: value }]) => `--${name} ${name === 'only' ? `${value}|none` : value}`)
  .join(' ')}]`;

/**
 * The options, checked before anything runs or is written: a misspelt option, scenario or
 * database would otherwise be ignored, and the bench would run everything or nothing and rewrite
 * BENCHMARKS.md as if it had measured what was asked.
 */
function parseOptions() {
  const { values } = parseArgs({ options: OPTIONS });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const only = new Set(values.only.split(','));
  const dialects = values.db.split(',') as BenchDialect[];
  const unknown = [...[...only].filter((g) => g !== 'none' && !GROUPS.includes(g)), ...dialects.filter((d) => !DIALECTS.includes(d))];
  // Quoted, so that the empty name a trailing or doubled comma makes is seen.
  if (unknown.length > 0) throw new Error(`unknown scenario or database: ${unknown.map((name) => JSON.stringify(name)).join(', ')}`);
  const count = (name: Exclude<keyof typeof OPTIONS, 'only' | 'db' | 'help'>) => wholeNumberOption(name, values[name]);
  return { only, dialects, seconds: count('seconds'), rounds: count('rounds'), rows: count('rows'), purgeRows: count('purge-rows'), exportRows: count('export-rows'), soakSeconds: count('soak-seconds') };
}

export type RunOptions = ReturnType<typeof parseOptions>;

const options = parseOptionsOrExit(parseOptions, USAGE);
const { runScenarios } = await import('./run.main.js');
await runScenarios(options, { groups: GROUPS, seconds: OPTIONS.seconds.default, rounds: OPTIONS.rounds.default });
