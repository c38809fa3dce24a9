import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { ClientScript } from '../../src/features/client-script/client-script.js';
import { parseConfig, type Config } from '../../src/platform/config.js';
import type { DatabaseHandle, DatabaseOptions } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Services } from '../../src/services.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { freePort } from './free-port.js';
import { injectFetch, urlOf, type AppFetch } from './inject-fetch.js';
import { OpenApiResponseChecker, recordTally } from './openapi-responses.js';

/** The app a test file builds, over its own migrated database. */
export interface AppUnderTest {
  app: FastifyInstance;
  config: Config;
  services: Services;
  database: TestDatabase;
  handle: DatabaseHandle;
  /** `fetch` by path (`t.fetch('/v1/…')`): over loopback when the app listens, else through `app.inject`. */
  fetch: AppFetch;
  /** Every submit and management API answer checked against /v1/openapi.json. */
  responseChecker: OpenApiResponseChecker;
  /** Closes everything, then fails if any answer did not match the document. */
  close(): Promise<void>;
}

/** The app listening on a loopback port: for what needs a real socket or another process reaching it. */
export interface TestApp extends AppUnderTest {
  /** http://127.0.0.1:<port> of the listening server. */
  url: string;
}

export interface TestAppOptions {
  /** Extra environment variables, as an operator would set them. */
  env?: Record<string, string>;
  /** Reuse a database (e.g. two instances on one PostgreSQL); it is then not dropped on close. */
  database?: TestDatabase;
  logger?: Parameters<typeof buildApp>[0]['logger'];
  loggerInstance?: Parameters<typeof buildApp>[0]['loggerInstance'];
  hookTransport?: Parameters<typeof buildApp>[0]['hookTransport'];
  mailTransport?: Parameters<typeof buildApp>[0]['mailTransport'];
  /** Listen on a port chosen up front and make it BASE_URL, for pages a browser must reach. */
  baseUrlIsOwnAddress?: boolean;
  /** Sees every route as it is registered (the permission matrix lists the dashboard's). */
  onRoute?: (route: RouteOptions) => void;
  /** False: answers are not checked against the OpenAPI document (a test whose handlers answer otherwise). */
  checkResponses?: boolean;
  /** Options of the app's database handle (onQuery sees every query the app makes). */
  databaseOptions?: DatabaseOptions;
  /** The browser script to serve instead of the build's (specs, which run with no build). */
  clientScript?: ClientScript;
}

export { freePort };

/**
 * The app with its own migrated database, never listening: requests go through `t.fetch`, which
 * hands them to `app.inject` (see ./inject-fetch.ts for what that leaves out).
 */
export async function buildTestApp(options: Omit<TestAppOptions, 'baseUrlIsOwnAddress'> = {}): Promise<AppUnderTest> {
  const built = await build(options, options.env ?? {});
  // What listen does first: the background work (outbox, purges, indexer) starts now, not at the first request.
  await built.app.ready();
  return { ...built, fetch: injectFetch(built.app, new URL(built.config.baseUrl).origin) };
}

/** A real server on a loopback port with its own migrated database. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const env = { ...options.env };
  if (options.baseUrlIsOwnAddress) {
    env.PORT = String(await freePort());
    env.BASE_URL = `http://127.0.0.1:${env.PORT}`;
  }
  const built = await build(options, env);
  await built.app.listen({ port: env.PORT ? Number(env.PORT) : 0, host: '127.0.0.1' });
  const address = built.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}`;
  return { ...built, url, fetch: (input, init) => fetch(input instanceof Request ? input : urlOf(input, url), init) };
}

async function build(options: TestAppOptions, env: Record<string, string>): Promise<Omit<AppUnderTest, 'fetch'>> {
  const database = options.database ?? (await createTestDatabase());
  const handle = database.open(options.databaseOptions);
  await migrateToLatest(handle);
  const config = parseConfig({
    LOG_LEVEL: 'silent',
    SUBMIT_RATE_LIMIT_PER_MINUTE: '0',
    ...env,
    DATABASE_URL: database.url,
  });
  let responseChecker: OpenApiResponseChecker | undefined;
  const app = await buildApp({
    config,
    handle,
    instrument: (bare) => {
      responseChecker = new OpenApiResponseChecker(bare);
      if (options.checkResponses !== false) responseChecker.install(bare);
      if (options.onRoute) bare.addHook('onRoute', options.onRoute);
    },
    ...(options.hookTransport ? { hookTransport: options.hookTransport } : {}),
    ...(options.mailTransport ? { mailTransport: options.mailTransport } : {}),
    ...(options.clientScript ? { clientScript: options.clientScript } : {}),
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? false }),
  });
  return {
    app,
    config,
    services: app.services,
    database,
    handle,
    responseChecker: responseChecker!,
    close: async () => {
      await app.close();
      await handle.close();
      if (!options.database) await database.drop();
      recordTally(responseChecker!);
      responseChecker!.assertNoMismatch();
    },
  };
}
