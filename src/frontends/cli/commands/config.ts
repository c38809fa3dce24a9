import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { formatOfPath, stringifyConfigFile, type ConfigFormat } from '../../../features/config-as-code/config-file.js';
import { formatPlan, planView } from '../../../features/config-as-code/config-plan-text.js';
import { ConfigAsCodeService, type ConfigSource, type ExportResult } from '../../../features/config-as-code/config.service.js';
import type { ConfigTarget } from '../../../features/config-as-code/config.types.js';
import { environmentVariables, loadConfig } from '../../../platform/config.js';
import { withServices } from '../context.js';

interface TargetOptions {
  server?: string;
  json?: boolean;
}

interface PlanOptions extends TargetOptions {
  prune?: boolean;
  writeSecrets?: boolean;
}

const DEFAULT_FILE = 'formgate.json';

/** The server named by --server, through its API; loaded only then, with the API client. */
async function remoteTarget(server: string, requirement: string): Promise<ConfigTarget> {
  const key = loadConfig().mcpApiKey;
  if (!key) throw new Error(`--server needs ${requirement}: set FORMGATE_API_KEY (or FORMGATE_API_KEY_FILE).`);
  const { RemoteConfigTarget } = await import('../../../features/config-as-code/remote-target.js');
  return new RemoteConfigTarget(server, key.trim());
}

/** Exit status of `plan`: 0 when nothing would change, 2 when something would (1 is an error). */
export const PLAN_CHANGES_EXIT_CODE = 2;

async function readSource(path: string): Promise<ConfigSource> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the configuration file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  return { text, format: formatOfPath(path), environment: environmentVariables() };
}

/**
 * Runs `run` against the server named by --server (through its API, with the `manage` key in
 * FORMGATE_API_KEY), else against this machine's database, and prints what it returns.
 */
async function onTarget<T>(o: TargetOptions, run: (service: ConfigAsCodeService, target: ConfigTarget) => Promise<T>, describe: (result: T) => string | undefined): Promise<T> {
  if (o.server === undefined) {
    let result: T | undefined;
    await withServices(
      o,
      async (s) => (result = await run(s.configAsCode, s.localConfigTarget)),
      describe,
    );
    return result!;
  }
  const result = await run(new ConfigAsCodeService(), await remoteTarget(o.server, 'an API key with the manage scope'));
  const text = o.json ? JSON.stringify(result) : describe(result);
  if (text !== undefined) process.stdout.write(`${text}\n`);
  return result;
}

function withPlanOptions(command: Command): Command {
  return command
    .option('--prune', 'also delete the forms of the account the file does not name, with their submissions')
    .option('--write-secrets', "through --server: write the file's secrets even where they may be unchanged (the API never shows one to compare)")
    .option('--server <url>', 'a Formgate server to use through its API (FORMGATE_API_KEY: a key with the manage scope) instead of the database here')
    .option('--json', 'print JSON');
}

export function registerConfig(program: Command): void {
  withPlanOptions(
    program
      .command('plan [file]')
      .summary('show what applying a configuration file would change (exit 2 when something would)')
      .description(`show what applying a configuration file (default ${DEFAULT_FILE}; .yaml/.yml are YAML) would change; exits 0 when nothing would, ${PLAN_CHANGES_EXIT_CODE} when something would, 1 on an error`),
  ).action(async (file: string | undefined, o: PlanOptions) => {
    const source = await readSource(file ?? DEFAULT_FILE);
    const result = await onTarget(
      o,
      async (service, target) => planView((await service.plan(source, target, { prune: o.prune === true, writeSecrets: o.writeSecrets === true })).plan),
      formatPlan,
    );
    if (result.changes > 0) process.exitCode = PLAN_CHANGES_EXIT_CODE;
  });

  withPlanOptions(
    program
      .command('apply [file]')
      .summary('make the changes of a configuration file')
      .description(`make the changes of a configuration file (default ${DEFAULT_FILE}), in one transaction on this machine; forms it does not name are left alone unless --prune`),
  ).action(async (file: string | undefined, o: PlanOptions) => {
    const source = await readSource(file ?? DEFAULT_FILE);
    await onTarget(
      o,
      async (service, target) => planView(await service.apply(source, target, { prune: o.prune === true, writeSecrets: o.writeSecrets === true })),
      (r) => `${formatPlan(r)}\n${r.changes === 0 ? 'Nothing to apply.' : 'Applied.'}`,
    );
  });

  program
    .command('export [account]')
    .summary("print the configuration file for an account's forms")
    .description("print the configuration file for an account's forms (by ID or email; through --server, the key's own account)")
    .option('--out <file>', 'write it to this file instead (.yaml/.yml: YAML, else JSON)')
    .option('--format <format>', 'json or yaml, on stdout (default json)')
    .option('--server <url>', 'a Formgate server to read through its API (FORMGATE_API_KEY) instead of the database here')
    .action(async (account: string | undefined, o: { out?: string; format?: string; server?: string }) => {
      if (o.format !== undefined && o.format !== 'json' && o.format !== 'yaml') throw new Error('--format must be json or yaml');
      const format: ConfigFormat = o.out !== undefined ? formatOfPath(o.out) : ((o.format as ConfigFormat | undefined) ?? 'json');
      let exported: ExportResult | undefined;
      const run = async (service: ConfigAsCodeService, target: ConfigTarget) => (exported = await service.export(target, account));
      if (o.server === undefined) {
        await withServices({}, (s) => run(s.configAsCode, s.localConfigTarget), () => undefined);
      } else {
        await run(new ConfigAsCodeService(), await remoteTarget(o.server, 'an API key'));
      }
      const { file, notes } = exported!;
      const text = stringifyConfigFile(file, format);
      for (const note of notes) process.stderr.write(`note: ${note}\n`);
      if (o.out !== undefined) {
        await writeFile(o.out, text);
        process.stderr.write(`Wrote ${o.out} (${file.forms.length} form(s)).\n`);
      } else {
        process.stdout.write(text);
      }
    });
}
