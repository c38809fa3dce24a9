// `npm run bench`'s options: run.ts checks them, then imports run.main.ts, which takes their type
// from here. Node's modules and options.ts alone at run time (lib.ts only for a type), so that a
// refusal or `--help` loads nothing of the product.
import { parseArgs } from 'node:util';
import type { BenchDialect } from './lib.js';
import { wholeNumberOption } from './options.js';

/** The scenarios, in the order they run and are listed. */
export const GROUPS = ['submit', 'paging', 'spam-checks', 'hooks', 'search', 'forms-list', 'purge', 'email', 'export', 'integrations', 'confirmations', 'soak', 'rejected', 'uploads', 'sealed'];
const DIALECTS: readonly BenchDialect[] = ['sqlite', 'postgres'];
export const OPTIONS = {
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
export const USAGE = `usage: npm run bench [-- ${Object.entries(OPTIONS)
  .filter(([name]) => name !== 'help')
  .map(([name, { default: value }]) => `--${name} ${name === 'only' ? `${value}|none` : value}`)
  .join(' ')}]`;

/**
 * The options, checked before anything runs or is written: a misspelt option, scenario or
 * database would otherwise be ignored, and the bench would run everything or nothing and rewrite
 * BENCHMARKS.md as if it had measured what was asked.
 */
export function parseOptions() {
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
