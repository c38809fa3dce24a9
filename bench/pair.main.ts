// What `npm run bench:pair` runs once pair.ts has checked its options: A, B and the limit, loaded
// in interleaved rounds, and the table that sets B against A. Imported only then, as it loads the
// drivers and the load generator, which a refusal or `--help` has no use for.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { FORM_BODY, JSON_BODY, freshDatabase, loadWithCpu, queryPostgres, type BenchDatabase, type BenchDialect } from './lib.js';
import type { PairOptions } from './pair.options.js';
import { THIS_BUILD } from './root.js';
import { startFormgate, startReference, type Child } from './servers.js';
import { median, medianBy } from './stats.js';

const BODIES = { json: [JSON_BODY, 'application/json'], urlencoded: [FORM_BODY, 'application/x-www-form-urlencoded'] } as const;
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
    product<typeof import('../src/platform/db/database.js')>('platform/db/database.js'),
    product<typeof import('../src/platform/db/migrate.js')>('platform/db/migrate.js'),
    product<typeof import('../src/platform/config.js')>('platform/config.js'),
    product<typeof import('../src/features/accounts/account.service.js')>('features/accounts/account.service.js'),
    product<typeof import('../src/features/forms/form.service.js')>('features/forms/form.service.js'),
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

export async function runPair(options: PairOptions): Promise<void> {
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

function printReport(options: PairOptions, sides: Array<{ name: string; description: string }>, contenders: Contender[], rounds: Array<Map<Contender, Measured>>): void {
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
