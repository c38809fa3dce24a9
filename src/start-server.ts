import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './platform/config.js';
import { createDatabase, type DatabaseHandle } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { redisAnswers } from './platform/lib/redis.js';
import { startMetricsServer, type MetricsServer } from './platform/metrics/metrics-server.js';
import { listeningLine, startupBanner } from './platform/startup/banner.js';
import { describeRedis } from './platform/startup/describe.js';
import { serverLogger } from './platform/startup/logger.js';
import { databaseStartupError, listenStartupError } from './platform/startup/startup-errors.js';
import { releaseYoungGeneration } from './platform/startup/young-generation.js';

/** Opens and migrates the database, turning the usual operator mistakes into a one-line StartupError. */
async function openDatabase(config: Config, onBackgroundError: (err: Error) => void): Promise<DatabaseHandle> {
  let handle: DatabaseHandle | undefined;
  try {
    handle = createDatabase(config.databaseUrl, { checkpointInBackground: true, onBackgroundError });
    await migrateToLatest(handle);
    return handle;
  } catch (err) {
    await handle?.close().catch(() => {});
    throw databaseStartupError(err, config.databaseUrl) ?? err;
  }
}

/**
 * Closes an app that could not start listening. A timer keeps the event loop alive meanwhile:
 * parts of the close wait on unref'd handles (the SQLite checkpoint worker), and with no server
 * listening Node would otherwise end the process mid-close (exit 13) before the one-line error.
 */
async function closeAfterFailedStart(app: FastifyInstance): Promise<void> {
  const keepAlive = setTimeout(() => {}, 10_000);
  try {
    await app.close();
  } finally {
    clearTimeout(keepAlive);
  }
}

/** ADMIN_EMAIL / ADMIN_PASSWORD: the first account, at a start with none; one log line either way. */
async function bootstrapAdmin(app: FastifyInstance, admin: { email: string; password: string }): Promise<void> {
  try {
    const created = await app.services.accounts.bootstrapAdmin(admin);
    if (created) app.log.info({ accountId: created.id }, `ADMIN_EMAIL: created the admin account ${created.email}`);
    else app.log.info('ADMIN_EMAIL is set but accounts exist already: no account created');
  } catch (err) {
    await closeAfterFailedStart(app);
    throw err;
  }
}

/** After the shutdown timeout closed every socket: time left for the writer and the database to close. */
const SHUTDOWN_GRACE_MS = 5000;

/** Migrates, builds and listens; SIGTERM/SIGINT stop accepting, finish in-flight requests (at most SHUTDOWN_TIMEOUT_MS), close the database. */
export async function startServer(config: Config): Promise<FastifyInstance> {
  let app: FastifyInstance | undefined;
  const handle = await openDatabase(config, (err) => app?.log.error({ err }, 'SQLite background checkpoint failed'));
  app = await buildApp({ config, handle, closeDatabase: true, ...(await serverLogger(config)) });
  if (config.bootstrapAdmin) await bootstrapAdmin(app, config.bootstrapAdmin);
  let metricsServer: MetricsServer | undefined;
  app.addHook('onClose', async () => {
    await metricsServer?.close();
  });

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

  const logsInfo = ['info', 'debug', 'trace'].includes(app.log.level);
  try {
    // Fastify's own "listening" line becomes the banner's first line.
    await app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => listeningLine(address) });
  } catch (err) {
    await closeAfterFailedStart(app);
    throw listenStartupError(err, config.host, config.port, 'PORT') ?? err;
  }
  if (config.metricsPort !== undefined) {
    try {
      metricsServer = await startMetricsServer(app.services.metrics, config.host, config.metricsPort);
    } catch (err) {
      await closeAfterFailedStart(app);
      throw listenStartupError(err, config.host, config.metricsPort, 'METRICS_PORT') ?? err;
    }
  }
  // Start-up is over: from here on, load grows the young generation as V8 would.
  releaseYoungGeneration();
  // After listen: the app's onReady gave the client its chance to connect (no offline queue).
  const redisReachable = app.redis ? await redisAnswers(app.redis, 3000) : undefined;

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const [first, ...rest] = startupBanner(config, {
    listenUrl: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    metricsUrl: metricsServer ? `http://${config.host}:${metricsServer.port}/metrics` : undefined,
    redisReachable,
    emailOn: config.smtpUrl !== undefined,
  });
  // Operators starting it by hand want these lines even with LOG_LEVEL=warn.
  if (logsInfo) for (const line of rest) app.log.info(line);
  else process.stdout.write(`${[first, ...rest].join('\n')}\n`);
  if (redisReachable === false) {
    // Redis is optional: say so once, in one line, and run on per-process counters.
    app.log.warn(
      `Redis at ${describeRedis(config.redisUrl!)} does not answer: rate limits are counted per process until it does; start Redis or correct REDIS_URL.`,
    );
  }
  return app;
}
