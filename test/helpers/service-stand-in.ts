import { once } from 'node:events';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface StandInRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type StandInHandler = (req: StandInRequest, res: ServerResponse) => void | Promise<void>;

/**
 * A loopback HTTP server standing in for a service's API, which can be stopped and started again
 * on its port (what it stores lives in its owner, not here).
 */
export class StandInServer {
  private server: Server | undefined;
  port = 0;
  readonly requests: StandInRequest[] = [];

  constructor(
    private readonly handler: StandInHandler,
    /** Serve HTTPS with this key and certificate (a service the owner runs, reached like a hook target). */
    private readonly tls?: { key: string; cert: string },
  ) {}

  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const listener: RequestListener = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://stand-in');
        const request = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(request);
        Promise.resolve(this.handler(request, res)).catch((err: unknown) => {
          if (!res.headersSent) json(res, 500, { error: { message: String(err) } });
        });
      });
    };
    const server: Server = this.tls ? createHttpsServer(this.tls, listener) : createServer(listener);
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Drops every connection (an answer being written is lost) and stops listening. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

export function bearer(req: StandInRequest): string | undefined {
  return /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
}
