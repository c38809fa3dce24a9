// `npm run bench:pair [-- --b-sql "drop index …" --db postgres …]` (`-- --help` lists the
// options): prices one change to the submit path. Two Formgate servers, A (this build as it is)
// and B (the change: SQL run on its database after migrating, other environment variables, or
// another build's dist), each on a fresh database, are loaded in rounds interleaved with the
// group-commit limit, the order reversed every other round, so the machine's drift hits all three
// alike. With no change B is A again: an A/A run, whose spread is what this machine cannot resolve
// (bench/ANALYSIS.md, stop 66: ±13% between two identical servers on a noisy machine).
// Prints a table; writes no file.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { FORM_BODY, JSON_BODY, cpuPerRequest, cpuSnapshot, freshDatabase, load, median, medianBy, parseOptionsOrExit, queryPostgres, startFormgate, startReference, type BenchDatabase, type BenchDialect, type Child, type CpuPerRequest, type LoadResult, wholeNumberOption } from './lib.js';

const OPTIONS = {
  db: { type: 'string', default: 'postgres' },
  body: { type: 'string', default: 'json' },
  rounds: { type: 'string', default: '7' },
  seconds: { type: 'string', default: '4' },
  'b-sql': { type: 'string' },
  'b-env': { type: 'string', multiple: true },
  'b-dist': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;
const USAGE =
  'usage: npm run bench:pair [-- --db postgres|sqlite --body json|urlencoded --rounds 7 --seconds 4 ' +
  '--b-sql "<SQL run on B\'s database after migrating>" --b-env NAME=value … --b-dist <another build\'s dist directory>]';
const BODIES = { json: [JSON_BODY, 'application/json'], urlencoded: [FORM_BODY, 'application/x-www-form-urlencoded'] } as const;
/** B's environment may change the server's settings, not which database or port it uses. */
const RESERVED_ENV = new Set(['DATABASE_URL', 'PORT']);

/** The options, checked before anything starts: a misspelt one would otherwise price nothing and print a result. */
function parseOptions() {
  const { values } = parseArgs({ options: OPTIONS });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error(`--db takes postgres or sqlite, not ${JSON.stringify(values.db)}`);
  if (values.body !== 'json' && values.body !== 'urlencoded') throw new Error(`--body takes json or urlencoded, not ${JSON.stringify(values.body)}`);
  const count = (name: 'rounds' | 'seconds') => wholeNumberOption(name, values[name]);
  const env: Record<string, string> = {};
  for (const assignment of values['b-env'] ?? []) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(assignment);
    if (!match) throw new Error(`--b-env takes NAME=value, not ${JSON.stringify(assignment)}`);
    if (RESERVED_ENV.has(match[1]!)) throw new Error(`--b-env cannot set ${match[1]}: the bench gives each server its own`);
    env[match[1]!] = match[2]!;
  }
  const dist = resolve(values['b-dist'] ?? 'dist');
  for (const file of ['src/server.js', 'bench/lib.js']) {
    if (!existsSync(resolve(dist, file))) throw new Error(`--b-dist: ${resolve(dist, file)} does not exist (build that tree first)`);
  }
  return { dialect: values.db as BenchDialect, body: values.body as keyof typeof BODIES, rounds: count('rounds'), seconds: count('seconds'), sql: values['b-sql'], env, dist };
}

interface Side {
  label: string;
  description: string;
  database: BenchDatabase;
  child?: Child;
  formId?: string;
}

type Measured = LoadResult & { cpu: CpuPerRequest };

/**
 * A migrated database with one form, made by the side's own build (`dist/bench/lib.js` of its
 * tree), so that a build with other migrations migrates its own database.
 */
async function prepareFixture(dist: string, url: string): Promise<string> {
  const lib = (await import(pathToFileURL(resolve(dist, 'bench/lib.js')).href)) as typeof import('./lib.js');
  const { handle, accountId, forms } = await lib.benchAccount(url, 1);
  try {
    return (await forms.createForm(accountId, { name: 'Bench' })).id;
  } finally {
    await handle.close();
  }
}

/** The change's SQL, straight through the driver, so that it does not depend on either build's code. */
async function runSql(dialect: BenchDialect, url: string, text: string): Promise<void> {
  if (dialect === 'sqlite') {
    const sqlite = new SqliteDatabase(url.slice('sqlite:'.length));
    try {
      sqlite.exec(text);
    } finally {
      sqlite.close();
    }
    return;
  }
  await queryPostgres(url, text);
}

async function main(options: ReturnType<typeof parseOptions>): Promise<void> {
  const [body, contentType] = BODIES[options.body];
  const change = [
    options.dist === resolve('dist') ? '' : `the build in ${options.dist}`,
    ...Object.entries(options.env).map(([name, value]) => `${name}=${value}`),
    options.sql === undefined ? '' : `after: ${options.sql}`,
  ].filter(Boolean);
  const sides: Side[] = [];
  let limit: Child | undefined;
  let limitDatabase: BenchDatabase | undefined;
  try {
    for (const [label, description, dist] of [['A', 'this build, as it is', resolve('dist')], ['B', change.length > 0 ? change.join('; ') : 'A again (an A/A run)', options.dist]] as const) {
      const side: Side = { label, description, database: await freshDatabase(options.dialect) };
      sides.push(side);
      side.formId = await prepareFixture(dist, side.database.url);
      if (label === 'B' && options.sql !== undefined) await runSql(options.dialect, side.database.url, options.sql);
      side.child = await startFormgate(side.database.url, label === 'B' ? options.env : {}, resolve(dist, 'src/server.js'));
    }
    limitDatabase = await freshDatabase(options.dialect);
    limit = await startReference('group', limitDatabase.url);
    const [a, b] = sides as [Required<Side>, Required<Side>];
    const run = async (child: Child, path: string, what: string): Promise<Measured> => {
      const before = cpuSnapshot();
      const result = await load({ url: `${child.url}${path}`, body, contentType, seconds: options.seconds });
      if (result.errors > 0) throw new Error(`${what}: ${result.errors} requests failed (not 2xx, errors or timeouts)`);
      return { ...result, cpu: cpuPerRequest(before, cpuSnapshot(), child.process.pid!, result.ok, options.seconds) };
    };
    const loads = { A: () => run(a.child, `/v1/submit/${a.formId}`, 'A'), B: () => run(b.child, `/v1/submit/${b.formId}`, 'B'), limit: () => run(limit!, `/v1/submit/${a.formId}`, 'the limit') };
    for (const warmUp of Object.values(loads)) await warmUp();
    const rounds: Array<Record<keyof typeof loads, Measured>> = [];
    for (let round = 0; round < options.rounds; round++) {
      const order = (round % 2 === 0 ? ['A', 'B', 'limit'] : ['limit', 'B', 'A']) as Array<keyof typeof loads>;
      const measured: Partial<Record<keyof typeof loads, Measured>> = {};
      for (const name of order) measured[name] = await loads[name]();
      rounds.push(measured as Record<keyof typeof loads, Measured>);
    }
    printReport(options, sides, rounds);
  } finally {
    await Promise.all([...sides.map((side) => side.child?.stop()), limit?.stop()]);
    await Promise.all([...sides.map((side) => side.database.drop()), limitDatabase?.drop()]);
  }
}

function printReport(options: ReturnType<typeof parseOptions>, sides: Side[], rounds: Array<Record<'A' | 'B' | 'limit', Measured>>): void {
  const byName = (name: 'A' | 'B' | 'limit') => medianBy(rounds.map((r) => r[name]), (m) => m.rps);
  const limit = byName('limit');
  const row = (name: string, m: Measured) =>
    `| ${name} | ${m.rps} | ${(m.rps / limit.rps).toFixed(2)} | ${m.cpu.server} / ${m.cpu.postgres} / ${m.cpu.loadGenerator}, ${m.cpu.busyPercent}% | ${m.p50} / ${m.p99} |`;
  const ratios = rounds.map((r) => r.B.rps / r.A.rps);
  const lines = [
    `pair on ${options.dialect}: ${options.rounds} rounds of ${options.seconds} s, ${options.body} body, 50 connections, the order reversed every other round`,
    ...sides.map((side) => `${side.label}: ${side.description}`),
    '',
    '| | req/s (median round) | of the limit | CPU µs a request: server / PostgreSQL / load generator, cores busy | p50 / p99 ms |',
    '|---|---|---|---|---|',
    row('A', byName('A')),
    row('B', byName('B')),
    row('the limit', limit),
    '',
    `B / A per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
    `B / A: median ${median(ratios).toFixed(2)}, range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

const options = parseOptionsOrExit(parseOptions, USAGE);
main(options).catch((error: Error) => {
  process.stderr.write(`bench:pair failed: ${error.message}\n`);
  process.exitCode = 1;
});
