// `npm run bench:pair [-- --b-sql "drop index …" --db postgres …]` (`-- --help` lists the
// options): prices one change to the submit path. Two Formgate servers, A (this build as it is)
// and B (the change: SQL run on its database after migrating, other environment variables, or
// another build's dist), each on a fresh database, are loaded in rounds interleaved with the
// group-commit limit, the order reversed every other round, so the machine's drift hits all three
// alike. With no change B is A again: an A/A run, whose spread is what this machine cannot resolve
// (on a noisy machine two identical servers differ by up to ±13%: docs/performance.md).
// Prints a table; writes no file.
// This file checks the options (pair.options.ts); pair.main.ts, imported once they are sound, runs
// the rounds.
import { parseOptionsOrExit } from './options.js';
import { USAGE, parseOptions } from './pair.options.js';

const options = parseOptionsOrExit(parseOptions, USAGE);
const { runPair } = await import('./pair.main.js');
runPair(options).catch((error: Error) => {
  process.stderr.write(`bench:pair failed: ${error.message}\n`);
  process.exitCode = 1;
});
