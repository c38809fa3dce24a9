import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';

/** After the shutdown timeout closed every socket: time left for the writer and the database to close. */
const SHUTDOWN_GRACE_MS = 5000;

/** Migrates, builds and listens; SIGTERM/SIGINT stop accepting, finish in-flight requests (at most SHUTDOWN_TIMEOUT_MS), close the database. */
export async function startServer(config: Config): Promise<FastifyInstance> {
  let app: FastifyInstance | undefined;
  const handle = createDatabase(config.databaseUrl, {
    checkpointInBackground: true,
    onBackgroundError: (err) => app?.log.error({ err }, 'SQLite background checkpoint failed'),
  });
  await migrateToLatest(handle);
  app = await buildApp({ config, handle, closeDatabase: true });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // In-flight requests get SHUTDOWN_TIMEOUT_MS; then every socket still open is closed, which
    // lets the close finish: the submit writer drains (a submission answered 200 was committed
    // before its answer) and the database closes. Should that hang too, the process still ends.
    const forced = setTimeout(() => {
      app.log.warn({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown timeout: closing the connections still open');
      app.server.closeAllConnections();
      setTimeout(() => {
        app.log.error('shutdown did not finish after closing every connection; exiting');
        process.exit(1);
      }, SHUTDOWN_GRACE_MS).unref();
    }, config.shutdownTimeoutMs);
    forced.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  app.log.info(`Formgate listening on http://${config.host}:${port} (public URL ${config.baseUrl})`);
  // Operators starting it by hand want the URL even with LOG_LEVEL=warn.
  if (!['info', 'debug', 'trace'].includes(config.logLevel)) process.stdout.write(`Formgate listening on http://${config.host}:${port}\n`);
  return app;
}

function isMain(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  try {
    await startServer(loadConfig());
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err)}\n`);
    process.exit(1);
  }
}
