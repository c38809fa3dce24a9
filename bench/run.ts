// `npm run bench [-- --only submit,soak --db postgres …]` (`-- --help` lists the options): runs each
// scenario beside its reference in the same invocation and rewrites BENCHMARKS.md with figures and
// ratios (bench/report.ts; `--only none` runs nothing and renders it again from bench/results.json).
// This file checks the options (run.options.ts); run.main.ts, imported once they are sound, runs
// the scenarios.
import { parseOptionsOrExit } from './options.js';
import { GROUPS, OPTIONS, USAGE, parseOptions } from './run.options.js';

const options = parseOptionsOrExit(parseOptions, USAGE);
const { runScenarios } = await import('./run.main.js');
await runScenarios(options, { groups: GROUPS, seconds: OPTIONS.seconds.default, rounds: OPTIONS.rounds.default });
