import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { logRedactPaths } from '../http/request-log.js';
import type { Config } from '../config.js';

/**
 * JSON lines for machines (systemd's journal, a log shipper); on a terminal, the same records
 * made readable by pino-pretty. Pretty printing runs in this thread with synchronous writes, so
 * the last lines before an exit are never lost.
 */
export async function serverLogger(
  config: Config,
  isTerminal = process.stdout.isTTY === true,
): Promise<Pick<FastifyServerOptions, 'logger' | 'loggerInstance'>> {
  const options = { level: config.logLevel, redact: logRedactPaths };
  if (!isTerminal) return { logger: options };
  const { default: pretty } = await import('pino-pretty');
  return {
    loggerInstance: pino(options, pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' })),
  };
}
