// `npm run bench:pair`'s options: pair.ts checks them, then imports pair.main.ts, which takes their
// type from here. Node's modules, options.ts and root.ts (paths, itself Node's modules alone) at
// run time (lib.ts only for a type), so that a refusal or `--help` loads nothing of the product.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchDialect } from './lib.js';
import { wholeNumberOption } from './options.js';
import { THIS_BUILD, fromInvocation } from './root.js';

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
export const USAGE =
  'usage: npm run bench:pair [-- --db postgres|sqlite --body json|urlencoded --rounds 7 --seconds 4 ' +
  '--b-sql "<SQL run on B\'s database after migrating>" --b-env NAME=value … --b-dist <another build\'s dist directory>]';
/** B's environment may change the server's settings, not which database or port it uses. */
const RESERVED_ENV = new Set(['DATABASE_URL', 'PORT']);

/** The options, checked before anything starts: a misspelt one would otherwise price nothing and print a result. */
export function parseOptions() {
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
  return { dialect: values.db as BenchDialect, body: values.body as 'json' | 'urlencoded', rounds: count('rounds'), seconds: count('seconds'), sql: values['b-sql'], env, dist };
}

export type PairOptions = ReturnType<typeof parseOptions>;
