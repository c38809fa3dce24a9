import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../config.js';
import { AppError, errorStatus } from '../errors.js';

/** Fastify's own default, kept: idle keep-alive connections are closed after 72 s. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * The HTTP server Fastify runs on. Node itself enforces REQUEST_TIMEOUT_MS on the headers and on
 * the whole request (slow headers and slow bodies alike), checked often enough that a late
 * client is cut off close to the bound; the client-error handler answers it 408.
 */
export function httpServerFactory(config: Config) {
  return (handler: (req: IncomingMessage, res: ServerResponse) => void): Server => {
    const timeout = config.requestTimeoutMs;
    const server = createServer(
      {
        requestTimeout: timeout,
        headersTimeout: timeout,
        connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeout / 4))),
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      },
      config.trustProxy === false
        ? handler
        : (req, res) => {
            dropUnparsableForwardedFor(req);
            handler(req, res);
          },
    );
    return server;
  };
}

/**
 * Fastify reads the client address from X-Forwarded-For, right to left, skipping trusted
 * proxies. An entry that is not an IP address was not written by a proxy that could be trusted,
 * so it and everything left of it are dropped before anything reads the header: the address
 * is then the right-most valid entry past the trusted proxies, or the proxy itself.
 */
function dropUnparsableForwardedFor(req: IncomingMessage): void {
  const header = req.headers['x-forwarded-for'];
  if (header === undefined) return;
  const entries = (Array.isArray(header) ? header.join(',') : header).split(',').map((entry) => entry.trim());
  let first = entries.length;
  while (first > 0 && isIP(entries[first - 1]!) !== 0) first--;
  if (first === 0) return;
  const kept = entries.slice(first);
  if (kept.length === 0) delete req.headers['x-forwarded-for'];
  else req.headers['x-forwarded-for'] = kept.join(', ');
}

/**
 * Requests Node's HTTP parser cannot read (duplicate Content-Length, broken chunking, bad header
 * bytes) or that were not received within REQUEST_TIMEOUT_MS never reach a route; they still get
 * the error envelope before the socket closes.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError('request_timeout', 'The request was not received in time.')
      : new AppError('validation_failed', 'The HTTP request could not be parsed.');
  const body = JSON.stringify(error.toBody());
  const status = errorStatus[error.code];
  const reason = status === 408 ? 'Request Timeout' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A client that neither reads nor closes must not keep the socket.
  setTimeout(() => socket.destroy(), 1000).unref();
}
