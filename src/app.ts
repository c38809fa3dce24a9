import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { createDatabase, type DatabaseHandle } from './db/database.js';
import { AppError } from './errors.js';
import { dashboardPlugin } from './dashboard/dashboard.plugin.js';
import { jsonErrorHandler, sendAppError } from './http/error-handler.js';
import { healthRoutes } from './http/health.routes.js';
import { managementApi } from './http/management-api.js';
import { openApiPlugin } from './http/openapi.js';
import { createRedis } from './lib/redis.js';
import type { HookTransportOptions } from './deliveries/delivery.sender.js';
import type { MailTransportOptions } from './notifications/mailer.js';
import { createServices, type Services } from './services.js';
import type { Redis } from 'ioredis';
import { submitRoutes } from './submissions/submission.routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    config: Config;
    /** Shared rate-limit store when REDIS_URL is set. */
    redis: Redis | undefined;
  }
}

export interface BuildAppOptions {
  config: Config;
  /** An open database; when absent one is opened from config. */
  handle?: DatabaseHandle;
  /**
   * Close the database with the app (default: only when the app opened it). It is closed last,
   * after the hook dispatcher stopped, since a pool cannot end while its LISTEN client is held.
   */
  closeDatabase?: boolean;
  /** Pino options or a logger instance; tests pass `false` or a capturing stream. */
  logger?: FastifyServerOptions['logger'];
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  /** Test seams for hook delivery (a local CA, a fake resolver). */
  hookTransport?: HookTransportOptions;
  /** Test seam for SMTP (a local CA for STARTTLS). */
  mailTransport?: MailTransportOptions;
}

/** Secrets that must never reach a log line. */
export const logRedactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'apiKey',
  'accessKey',
  'secret',
  'password',
];

/**
 * Requests Node's HTTP parser cannot read (duplicate Content-Length, broken chunking, bad header
 * bytes) never reach a route; they still get the contract's envelope before the socket closes.
 */
function answerUnparsableRequest(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(new AppError('validation_failed', 'The HTTP request could not be parsed.').toBody());
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Builds the whole service. Never listens: server.ts and tests decide that. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const handle = options.handle ?? createDatabase(config.databaseUrl);
  const app = Fastify({
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: options.logger ?? { level: config.logLevel, redact: logRedactPaths } }),
    trustProxy: config.trustProxy,
    bodyLimit: config.submitMaxBodyBytes,
    // Field names such as __proto__ are data on the submit endpoint; the parsers must not drop them.
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler: answerUnparsableRequest,
    // Unknown body properties are an error to report, not something to drop silently.
    ajv: { customOptions: { removeAdditional: false } },
  });

  const services = createServices(handle, config, app.log, {
    ...(options.hookTransport ? { hookTransport: options.hookTransport } : {}),
    ...(options.mailTransport ? { mailTransport: options.mailTransport } : {}),
  });
  app.decorate('services', services);
  app.decorate('config', config);
  const redis = config.redisUrl ? createRedis(config.redisUrl) : undefined;
  app.decorate('redis', redis);

  app.setErrorHandler(jsonErrorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendAppError(reply, new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`)),
  );

  await app.register(openApiPlugin);
  await app.register(healthRoutes);
  await app.register(submitRoutes);
  await app.register(managementApi, { prefix: '/v1/api' });
  await app.register(dashboardPlugin);

  app.addHook('onReady', async () => {
    services.submissions.start();
    services.outbox.start();
  });
  app.addHook('onClose', async () => {
    await services.outbox.stop();
    await services.submissions.close();
    if (redis) await redis.quit().catch(() => redis.disconnect());
    if (options.closeDatabase ?? !options.handle) await handle.close();
  });
  return app;
}
