// `npm run bench:profile [-- --seconds 8 --body json --frequency 1999]` (`-- --help` lists the
// options): where PostgreSQL's CPU a submitted row goes, Formgate's batch statement beside the
// group-commit limit's (what the parts cost and why: docs/performance.md). Each is loaded on a
// fresh schema (50 connections, after a warm-up) while `perf record -a -g` samples the machine;
// the samples of the PostgreSQL backends that served the load (found by the application_name its
// server connected with) are summed by the functions on their stacks, so each part is inclusive,
// and whatever else the machine runs is left out. It also counts each side's rows a batch (a batch's rows share an
// xmin), as what a batch pays once (executor start and finish, the commit) is shared by them.
// Profiles from two machines, set side by side, tell which part of the statement a machine makes
// dearer. Needs perf with access to every CPU (root, or perf_event_paranoid ≤ 0) and a PostgreSQL
// built with symbols and frame pointers, as Debian's is.
// Prints a table; writes no file but perf's, in a temp directory it removes.
// This file checks the options (profile.options.ts) and perf; profile.main.ts, imported once they
// are sound, profiles.
import { spawnSync } from 'node:child_process';
import { parseOptionsOrExit } from './options.js';
import { USAGE, parseOptions, type ProfileOptions } from './profile.options.js';

async function main(options: ProfileOptions): Promise<void> {
  // Before anything starts, or loads: without perf there is nothing to measure.
  const version = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) throw new Error('perf is not installed or does not run (Debian: apt-get install linux-perf)');
  const { runProfile } = await import('./profile.main.js');
  await runProfile(options);
}

const options = parseOptionsOrExit(parseOptions, USAGE);
main(options).catch((error: Error) => {
  process.stderr.write(`bench:profile failed: ${error.message}\n`);
  process.exitCode = 1;
});
