// BENCHMARKS.md and bench/results.json: the rows a run measured, merged with those kept from earlier
// runs, and the page that presents them. The page says how each figure is taken and what it is held
// to; why a figure is what it is belongs in docs/performance.md, so the page stays short and a
// re-render (`--only none`) can rewrite it whole from the kept rows.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './lib.js';
import { ROOT } from './root.js';

/** A row as kept in bench/results.json: which `--only` scenario measured it, when, and on what machine. */
export interface StoredRow extends BenchRow {
  group: string;
  measuredOn: string;
  machine: string;
}

/** Ratios compare within one run, but rows kept from runs on other machines must say so. */
export const MACHINE = `${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}`;

/** What the page states about how the figures were taken, as `npm run bench` takes them. */
export interface ReportSettings {
  /** The `--only` scenarios in the order they run: the kept rows are listed in it. */
  groups: readonly string[];
  /** The defaults of `--seconds` and `--rounds` (kept rows do not record the values they ran with). */
  seconds: string;
  rounds: string;
  idleSettleMs: number;
  idleReducedMs: number;
}

// The checkout's, unless the bench's own tests point the bench at a directory of their own.
const OUTPUT_DIR = process.env.BENCH_OUTPUT_DIR ?? ROOT;
const RESULTS = join(OUTPUT_DIR, 'bench/results.json');
const PAGE = join(OUTPUT_DIR, 'BENCHMARKS.md');

/** Keeps `measured` in bench/results.json and renders BENCHMARKS.md from all the kept rows. */
export function writeReport(measured: StoredRow[], settings: ReportSettings): void {
  const results = mergedResults(measured, settings.groups);
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 1)}\n`);
  writeFileSync(PAGE, renderPage(results, settings));
}

/** This run's rows replace those of the same scenario and database; the rest are kept, in scenario order. */
function mergedResults(measured: StoredRow[], groups: readonly string[]): StoredRow[] {
  const kept = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as StoredRow[]) : [];
  const ran = new Set(measured.map((r) => `${r.db} ${r.group}`));
  const all = [...kept.filter((r) => !ran.has(`${r.db} ${r.group}`)), ...measured];
  const order = (r: StoredRow) => (r.db === 'sqlite' ? 0 : 1000) + (groups.indexOf(r.group) + 1) * 10;
  return all.map((r, i) => ({ r, i })).sort((a, b) => order(a.r) - order(b.r) || a.i - b.i).map(({ r }) => r);
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function renderPage(results: StoredRow[], settings: ReportSettings): string {
  const targeted = results.filter((r) => r.target);
  const missed = targeted.filter((r) => !r.pass);
  const lines = [
    '# Benchmarks',
    '',
    `Rendered by \`npm run bench\` on ${new Date().toISOString()} (${MACHINE}, Node ${process.version}) from \`bench/results.json\`;`,
    "each row's last column says when and on what machine it was measured. Why the figures are what they",
    'are, and what each change to the submit path cost or saved: [docs/performance.md](docs/performance.md).',
    '',
    '## Method',
    '',
    '- Every figure is measured in the same run as its reference, both as separate processes on loopback, so the **ratio** is the number that matters; absolute numbers drift on shared machines, and rows measured on different machines do not compare.',
    `- Formgate runs from the build in \`dist/\` with \`npm start\`'s Node flags, \`LOG_LEVEL=warn\` and the submit rate limit off. Each scenario starts on a fresh database: a SQLite file in a temporary directory, or a schema of its own on the PostgreSQL at \`BENCH_DATABASE_URL\` (default \`postgres://postgres@127.0.0.1:5432/formgate_test\`).`,
    `- Submit load: autocannon, 50 connections, after a warm-up; Formgate and its references in interleaved rounds (by default ${settings.rounds} rounds of ${settings.seconds} s each, \`--rounds\` and \`--seconds\`), the median round of each shown, so the machine's drift hits every side alike.`,
    "- CPU per request: each process's user + system time from /proc over the measured load, divided by the requests answered: the server (all its threads), every PostgreSQL process, and the bench process itself (autocannon); beside it, how busy the cores were. Throughput follows the cores' busy share divided by the total CPU a request costs, so this row says where a gap to the limit lies.",
    `- Memory: idle RSS ${settings.idleSettleMs / 1000} s after the server prints its listening line, no request yet (beside the figure as it starts listening), and again at ${settings.idleReducedMs / 1000} s, once V8's memory reducer has run; peak RSS is the server's VmHWM after both submit loads.`,
    "- Outbound work (hooks, email, integrations, confirmations): the submit throughput and p99 of a form that sends against one that does not, on the same server, to receivers and SMTP sinks that answer after the delay each row names (the row with every integration kind points each service's API base, and listmonk's address, at that receiver too); the rates the dispatcher sustains for hooks, email and integrations are measured on a server of their own, so the backlog a slow receiver leaves does not count.",
    '- Soak: a steady 400 submissions/s, every one emailed and hooked, against the same load with no outbound work; the p99 after the first 5 s, the slowest seconds with what PostgreSQL did in them (WAL written, a checkpoint, autovacuum), and whether every stored submission reached both sinks exactly once.',
    '- Rejected submits: every side names its path per request (autocannon\'s `setupRequest`, which invented IDs need), so each is measured with the same load generator.',
    '',
    '## References',
    '',
    'Each runs in a process of its own beside the server under test (`bench/reference-server.ts`):',
    '',
    '- **bare Fastify route**: parses the same body and answers the same JSON, storing nothing: the framework ceiling.',
    '- **one insert per request**: the same route plus one autocommitted single-row insert through the same driver.',
    "- **the group-commit limit**: rows group-committed as Formgate commits them (requests that arrive while a batch is written wait for the next one) into a table of four columns, and nothing else: what storing a submission costs at the least, so Formgate's share of it is what its own work costs.",
    '',
    '## Targets',
    '',
    'A target is what the product promises of a scenario, stated beside the row that answers it; the harness computes PASS or MISS from each run, and a row without a target is there to explain one that has.',
    `This table holds ${targeted.length} targets, ${targeted.length - missed.length} of them met.`,
    ...(missed.length === 0 ? [] : ['', 'Missed:', '', ...missed.map((r) => `- ${r.db}, ${r.scenario}: ${r.metric}: ${r.ratio === '—' ? r.value : r.ratio} against ${r.target} (${r.measuredOn}).`)]),
    '',
    '## Results',
    '',
    '| db | scenario | metric | value | reference | ratio | target | measured |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map((r) => `| ${[r.db, r.scenario, r.metric, r.value, r.reference, r.ratio, r.target ? `${r.target} ${r.pass ? 'PASS' : 'MISS'}` : '', `${r.measuredOn}, ${r.machine}`].map(cell).join(' | ')} |`),
    '',
    '## How to run',
    '',
    '- `npm run bench` builds the product, runs every scenario on SQLite and on PostgreSQL, and rewrites this page and `bench/results.json`. `npm run bench -- --help` lists the options; `--only soak,purge --db postgres` runs some scenarios, whose rows replace those of the same scenarios and database while the others are kept from the run that measured them; `--only none` measures nothing and renders this page again from `bench/results.json`.',
    '- `npm run bench:pair` prices one change to the submit path against this build: A as it is and B changed (`--b-sql`, `--b-env`, or `--b-dist` another build\'s `dist`), each on a fresh database, in interleaved rounds beside the group-commit limit. Run it once with no change first: that A/A run\'s spread is what the machine cannot resolve. It prints a table and writes nothing here.',
    "- `npm run bench:profile` takes PostgreSQL's CPU a submitted row apart by function under `perf record -a -g`, Formgate's statement beside the group-commit limit's; it needs perf with access to every CPU, and writes nothing here.",
    '- `npm run bench:spam-filter` prints the learning spam filter\'s precision and recall on the SpamAssassin public corpus.',
    '- Every run drops the databases and stops the servers it made, even when killed with `kill -9` (`bench/reaper-process.ts`).',
    '- The bench is an npm workspace of its own: `npm run typecheck --workspace=bench` checks it, and `npm run test --workspace=bench` runs its tools\' tests (they need PostgreSQL at `TEST_DATABASE_URL`, default `postgres://postgres@127.0.0.1:5432/formgate_test`, and perf for `bench:profile`\'s).',
    '',
  ];
  return lines.join('\n');
}
