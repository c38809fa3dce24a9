// `npm run bench:pair [-- --b-sql "drop index …" --db postgres …]` (`-- --help` lists the
// options): prices one change to the submit path. Two Formgate servers, A (this build as it is)
// and B (the change: SQL run on its database after migrating, other environment variables, or
// another build's dist), each on a fresh database, are loaded in rounds interleaved with the
// group-commit limit, the order reversed every other round, so the machine's drift hits all three
// alike. With no change B is A again: an A/A run, whose spread is what this machine cannot resolve
// (on a noisy machine two identical servers differ by up to ±13%: docs/performance.md).
// Prints a table; writes no file.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { FORM_BODY, JSON_BODY, freshDatabase, loadWithCpu, parseOptionsOrExit, queryPostgres, type BenchDatabase, type BenchDialect, wholeNumberOption } from './lib.js';
import { atRoot, fromInvocation } from './root.js';
import { startFormgate, startReference, type Child } from './servers.js';
import { median, medianBy } from './stats.js';

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
/** A's build: this checkout's, which `npm run bench:pair` has just compiled. */
const THIS_BUILD = atRoot('dist');
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
  const dist = values['b-dist'] === undefined ? THIS_BUILD : fromInvocation(values['b-dist']);
  const server = resolve(dist, 'src/server.js');
  if (!existsSync(server)) throw new Error(`--b-dist: ${server} does not exist (build that tree first)`);
  return { dialect: values.db as BenchDialect, body: values.body as keyof typeof BODIES, rounds: count('rounds'), seconds: count('seconds'), sql: values['b-sql'], env, dist };
}

type Options = ReturnType<typeof parseOptions>;
type Measured = Awaited<ReturnType<typeof loadWithCpu>>;
/** What is loaded in each round: A, B and the limit. */
interface Contender {
  name: string;
  child: Child;
  path: string;
}

/**
 * A migrated database with one form, made by the side's own build (the compiled modules of its
 * dist/src, as lib.ts's benchAccount makes one from this tree's source), so that a build with
 * other migrations migrates its own database.
 */
async function prepareFixture(dist: string, url: string): Promise<string> {
  const product = <Module>(path: string) => import(pathToFileURL(resolve(dist, 'src', path)).href) as Promise<Module>;
  const [{ createDatabase }, { migrateToLatest }, { parseConfig }, { AccountService }, { FormService }] = await Promise.all([
    product<typeof import('../src/db/database.js')>('db/database.js'),
    product<typeof import('../src/db/migrate.js')>('db/migrate.js'),
    product<typeof import('../src/config.js')>('config.js'),
    product<typeof import('../src/accounts/account.service.js')>('accounts/account.service.js'),
    product<typeof import('../src/forms/form.service.js')>('forms/form.service.js'),
  ]);
  const handle = createDatabase(url, { poolSize: 1 });
  try {
    await migrateToLatest(handle);
    const account = await new AccountService(handle.db, parseConfig({})).createAccount({ email: `bench-${Date.now()}@example.com`, planId: 'pro' });
    return (await new FormService(handle.db).createForm(account.id, { name: 'Bench' })).id;
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

async function main(options: Options): Promise<void> {
  const change = [
    ...(options.dist === THIS_BUILD ? [] : [`the build in ${options.dist}`]),
    ...Object.entries(options.env).map(([name, value]) => `${name}=${value}`),
    ...(options.sql === undefined ? [] : [`after: ${options.sql}`]),
  ];
  const sides = [
    { name: 'A', description: 'this build, as it is', dist: THIS_BUILD, env: {}, sql: undefined },
    { name: 'B', description: change.length > 0 ? change.join('; ') : 'A again (an A/A run)', dist: options.dist, env: options.env, sql: options.sql },
  ];
  // Whatever was made is stopped and dropped, however far the run got.
  const databases: BenchDatabase[] = [];
  const children: Child[] = [];
  const newDatabase = async () => {
    databases.push(await freshDatabase(options.dialect));
    return databases.at(-1)!.url;
  };
  const started = async (child: Promise<Child>) => {
    children.push(await child);
    return children.at(-1)!;
  };
  try {
    const contenders: Contender[] = [];
    for (const side of sides) {
      const url = await newDatabase();
      const formId = await prepareFixture(side.dist, url);
      if (side.sql !== undefined) await runSql(options.dialect, url, side.sql);
      contenders.push({ name: side.name, child: await started(startFormgate(url, side.env, resolve(side.dist, 'src/server.js'))), path: `/v1/submit/${formId}` });
    }
    contenders.push({ name: 'the limit', child: await started(startReference('group', await newDatabase())), path: contenders[0]!.path });
    const [body, contentType] = BODIES[options.body];
    const measure = async ({ name, child, path }: Contender): Promise<Measured> => {
      const measured = await loadWithCpu(child, path, body, contentType, options.seconds);
      if (measured.errors > 0) throw new Error(`${name}: ${measured.errors} requests failed (not 2xx, errors or timeouts)`);
      return measured;
    };
    for (const contender of contenders) await measure(contender); // warm-up, A first
    const rounds: Array<Map<Contender, Measured>> = [];
    for (let round = 0; round < options.rounds; round++) {
      const measured = new Map<Contender, Measured>();
      for (const contender of round % 2 === 0 ? contenders : [...contenders].reverse()) measured.set(contender, await measure(contender));
      rounds.push(measured);
    }
    printReport(options, sides, contenders, rounds);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await Promise.all(databases.map((database) => database.drop()));
  }
}

function printReport(options: Options, sides: Array<{ name: string; description: string }>, contenders: Contender[], rounds: Array<Map<Contender, Measured>>): void {
  const [a, b, limit] = contenders.map((contender) => medianBy(rounds.map((round) => round.get(contender)!), (m) => m.rps)) as [Measured, Measured, Measured];
  const row = (name: string, m: Measured) =>
    `| ${name} | ${m.rps} | ${(m.rps / limit.rps).toFixed(2)} | ${m.cpu.server} / ${m.cpu.postgres} / ${m.cpu.loadGenerator}, ${m.cpu.busyPercent}% | ${m.p50} / ${m.p99} |`;
  const ratios = rounds.map((round) => round.get(contenders[1]!)!.rps / round.get(contenders[0]!)!.rps);
  const lines = [
    `pair on ${options.dialect}: ${options.rounds} rounds of ${options.seconds} s, ${options.body} body, 50 connections, the order reversed every other round`,
    ...sides.map((side) => `${side.name}: ${side.description}`),
    '',
    '| | req/s (median round) | of the limit | CPU µs a request: server / PostgreSQL / load generator, cores busy | p50 / p99 ms |',
    '|---|---|---|---|---|',
    row('A', a),
    row('B', b),
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
