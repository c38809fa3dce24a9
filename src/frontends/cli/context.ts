import pino from 'pino';
import { loadConfig, type Config } from '../../platform/config.js';
import { createDatabase } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { runAsActor } from '../../features/audit/audit.context.js';
import { AppError } from '../../platform/errors.js';
import { createServices, type Services } from '../../services.js';

export interface OutputOptions {
  json?: boolean;
}

/**
 * Opens the database (migrating it, so a fresh checkout needs no extra step), runs one command
 * against the services, prints its result and closes everything.
 */
export async function withServices<T>(
  options: OutputOptions,
  run: (services: Services, config: Config) => Promise<T>,
  /** The text printed without --json; undefined prints nothing (the command prints itself). */
  describe: (result: T) => string | undefined,
): Promise<void> {
  const config = loadConfig();
  const handle = createDatabase(config.databaseUrl, { poolSize: 2 });
  let services: Services | undefined;
  try {
    await migrateToLatest(handle);
    const logger = pino({ level: 'warn' }, pino.destination(2));
    services = createServices(handle, config, logger);
    // What a command changes is the operator's doing in the audit log.
    const result = await runAsActor(() => ({ actor: { type: 'cli', label: 'cli' }, address: undefined }), () => run(services!, config));
    const text = options.json ? JSON.stringify(result) : describe(result);
    if (text !== undefined) process.stdout.write(`${text}\n`);
  } finally {
    // Never started, so this only closes what a command opened (an SMTP connection).
    await services?.outbox.stop();
    await handle.close();
  }
}

export function formatCliError(err: unknown): string {
  if (err instanceof AppError) {
    const fields = err.fieldErrors
      ? Object.entries(err.fieldErrors)
          .map(([field, message]) => `\n  ${field}: ${message}`)
          .join('')
      : '';
    return `error: ${err.message}${fields}`;
  }
  return `error: ${err instanceof Error ? err.message : String(err)}`;
}
