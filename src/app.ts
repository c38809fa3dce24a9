import { fileApiRoutes, signedFileRoutes } from './features/files/file.routes.js';
import { runAsActor } from './features/audit/audit.context.js';
import type { AuditActor } from './features/audit/audit.types.js';
import { unsubscribeRoutes } from './features/notifications/unsubscribe.routes.js';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from './platform/config.js';
import { clientScriptRoutes } from './features/client-script/client-script.routes.js';
import { loadClientScript, type ClientScript } from './features/client-script/client-script.js';
import { createDatabase, type DatabaseHandle } from './platform/db/database.js';
import { AppError } from './platform/errors.js';
import { dashboardPlugin } from './frontends/dashboard/dashboard.plugin.js';
import { jsonErrorHandler, sendAppError } from './platform/http/error-handler.js';
import { healthRoutes } from './platform/http/health.routes.js';
import { answerClientError, httpServerFactory } from './platform/http/http-server.js';
import { managementApi } from './platform/http/management-api.js';
import { mcpRoutes } from './frontends/mcp/mcp.routes.js';
import { acceptEveryHttpMethod, answerFrameworkError, rejectUnstorableInput } from './platform/http/request-input.js';
import { refuseRequestsWhileClosing } from './platform/http/closing.js';
import { openApiPlugin } from './platform/http/openapi.js';
import { configSchemaRoutes } from './features/config-as-code/config-schema.routes.js';
import { echoRequestId, requestIdFor } from './platform/http/request-id.js';
import { logRedactPaths, withRedactedRequests } from './platform/http/request-log.js';
import { createMetrics } from './platform/metrics/metrics.js';
import { createRedis } from './platform/lib/redis.js';
import { canonicalRequestUrl } from './platform/http/canonical-path.js';
import { RateLimiter } from './platform/lib/rate-limiter.js';
import type { HookTransportOptions } from './features/hooks/delivery.channel.js';
import type { MailTransportOptions } from './features/notifications/mailer.js';
import { createServices, type Services } from './services.js';
import type { Redis } from 'ioredis';
import { submitRoutes } from './features/submit/submit.routes.js';
import { accountRoutes } from './features/accounts/account.routes.js';
import { formRoutes } from './features/forms/form.routes.js';
import { formConfigRoutes } from './features/form-config/form-config.routes.js';
import { hookRoutes } from './features/hooks/hook.routes.js';
import { submissionApiRoutes } from './features/submissions/submission-api.routes.js';
import { botCheckRoutes } from './features/bot-checks/bot-check.routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    config: Config;
    /** Shared rate-limit store when REDIS_URL is set. */
    redis: Redis | undefined;
    /** Rate-limit counters of submit, the management API and log-in (Redis, else in-process). */
    limiter: RateLimiter;
    /** The browser script (client/), its hash and Subresource Integrity value, read at start. */
    clientScript: ClientScript;
  }
}

export interface BuildAppOptions {
  config: Config;
  /** An open database; when absent one is opened from config. */
  handle?: DatabaseHandle;
  /**
   * Close the database with the app (default: only when the app opened it). It is closed last,
   * after the outbox dispatcher stopped, since a pool cannot end while its LISTEN client is held.
   */
  closeDatabase?: boolean;
  /** Pino options or a logger instance; tests pass `false` or a capturing stream. */
  logger?: FastifyServerOptions['logger'];
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  /** Test seams for hook delivery (a local CA, a fake resolver). */
  hookTransport?: HookTransportOptions;
  /** Test seam for SMTP (a local CA for STARTTLS). */
  mailTransport?: MailTransportOptions;
  /**
   * Test seam: runs on the bare instance, before any hook or route, so what it adds reaches every
   * route (the test suite checks every API answer against the OpenAPI document this way).
   */
  instrument?: (app: FastifyInstance) => void;
  /** Test seam: the browser script to serve instead of the build's (specs run without a build). */
  clientScript?: ClientScript;
}

function waitUntilReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
  });
}

/** Fastify takes a hop count as a trust function (its types do not list numbers). */
function trustProxyOption(trust: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return [...trust];
}

/** Routes whose changes have an actor in the audit log: the dashboard, the management API and MCP. */
const AUDITED_ROUTE = /^\/(dashboard|v1\/api|v1\/mcp)(\/|$)/;

function requestActor(request: FastifyRequest): AuditActor | undefined {
  if (request.user) return { type: 'user', id: request.user.id, label: request.user.email };
  if (request.apiKeyId) return { type: 'api_key', id: request.apiKeyId, label: request.apiKeyId };
  return undefined;
}

/** Builds the whole service. Never listens: server.ts and tests decide that. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  // First: a missing build stops the start before anything is opened.
  const clientScript = options.clientScript ?? loadClientScript();
  const handle = options.handle ?? createDatabase(config.databaseUrl);
  const app = Fastify({
    // Request lines show secret links and signed query strings as [redacted] (request-log.ts).
    ...withRedactedRequests(
      options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? { level: config.logLevel, redact: logRedactPaths } },
    ),
    trustProxy: trustProxyOption(config.trustProxy),
    // Timeouts, keep-alive and the X-Forwarded-For clean-up live on the server (see http-server.ts).
    serverFactory: httpServerFactory(config),
    bodyLimit: config.submitMaxBodyBytes,
    // Field names such as __proto__ are data on the submit endpoint; the parsers must not drop them.
    // Requests arriving while closing get 503 in the envelope (refuseRequestsWhileClosing).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Any parameter length reaches the route, whose own error handler (dashboard page, submit
    // redirect) answers an over-long ID not_found like any other ID no row can have.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16_384 },
    // Routing, guards and handlers see one spelling of each path (encoded letters, doubled slashes).
    rewriteUrl: (request) => canonicalRequestUrl(request.url ?? '/'),
    clientErrorHandler: answerClientError,
    // X-Request-Id: the client's when acceptable, else a new one; every request log line has it.
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    frameworkErrors: answerFrameworkError,
    // Unknown body properties are an error to report, not something to drop silently.
    ajv: { customOptions: { removeAdditional: false } },
  });

  options.instrument?.(app);

  const services = createServices(handle, config, app.log, {
    ...(options.hookTransport ? { hookTransport: options.hookTransport } : {}),
    ...(options.mailTransport ? { mailTransport: options.mailTransport } : {}),
    metrics: createMetrics({ enabled: config.metricsPort !== undefined, processMetrics: true }),
  });
  app.decorate('services', services);
  app.decorate('config', config);
  const redis = config.redisUrl ? createRedis(config.redisUrl) : undefined;
  app.decorate('redis', redis);
  let redisWarned = false;
  const limiter = new RateLimiter(redis, (err) => {
    // One line per outage, not one per request.
    if (!redisWarned) app.log.warn({ err }, 'Redis unreachable; rate limits count in this process until it is back');
    redisWarned = true;
  });
  redis?.on('ready', () => {
    redisWarned = false;
  });
  app.decorate('limiter', limiter);
  app.decorate('clientScript', clientScript);

  echoRequestId(app);
  // Every answer, of every route and error: browsers must never guess a type (a JSON error or a
  // CSV export rendered as HTML).
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
  // The dashboard's owner or the API key is the actor of what the request changes (the audit
  // log). Only where changes can be made, decided by the route matched: the submit path keeps its
  // request as it was.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!AUDITED_ROUTE.test(request.routeOptions.url ?? '')) return done();
    runAsActor(() => ({ actor: requestActor(request), address: request.ip }), done);
  });
  app.setErrorHandler(jsonErrorHandler);
  acceptEveryHttpMethod(app);
  refuseRequestsWhileClosing(app);
  rejectUnstorableInput(app);
  app.setNotFoundHandler((request, reply) =>
    sendAppError(reply, new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`)),
  );

  await app.register(openApiPlugin);
  await app.register(healthRoutes);
  await app.register(configSchemaRoutes);
  await app.register(submitRoutes);
  await app.register(clientScriptRoutes(clientScript));
  await app.register(botCheckRoutes);
  await app.register(unsubscribeRoutes);
  await app.register(signedFileRoutes);
  await app.register(managementApi, { prefix: '/v1/api', routes: [accountRoutes, formRoutes, formConfigRoutes, submissionApiRoutes, hookRoutes, fileApiRoutes] });
  // The same keys, the same 120 requests a minute per key (one counter for both).
  await app.register(managementApi, { prefix: '/v1/mcp', routes: [mcpRoutes] });
  await app.register(dashboardPlugin);
  // Someone opening the bare address in a browser wants the dashboard, not a JSON 404.
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard', 302));

  app.addHook('onReady', async () => {
    // Shared counters from the first request on when Redis is there; without it, start anyway.
    if (redis) await waitUntilReady(redis, 2000);
    services.submissions.start();
    services.searchIndex.start();
    services.outbox.start();
    services.lifecycle.start();
    services.files.start();
  });
  app.addHook('onClose', async () => {
    await services.lifecycle.close();
    await services.outbox.stop();
    await services.submissions.close();
    await services.searchIndex.close();
    await services.spamFilter.close();
    await services.files.close();
    limiter.close();
    if (redis) await redis.quit().catch(() => redis.disconnect());
    if (options.closeDatabase ?? !options.handle) await handle.close();
  });
  return app;
}
