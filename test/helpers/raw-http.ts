import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given (duplicate headers, broken framing, invalid UTF-8 and all) and reads
 * the answer until the server closes the connection (requests say `Connection: close`). Resolves
 * status 0 when the server answered nothing at all. With `halfClose` the client ends its side
 * after writing, which is how a truncated body is made to end; Node's server then drops the
 * exchange, so only use it where no answer is an acceptable answer.
 */
export function sendRaw(url: string, request: Buffer, options: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('raw request timed out'));
    }, timeoutMs);
    socket.on('connect', () => {
      // A peer that closes early may refuse the rest of a large body: that is an answer, not an error.
      socket.write(request, () => {
        if (options.halfClose) socket.end();
      });
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') {
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
  });
}

export function parseResponse(raw: Buffer): RawResponse {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: text };
  const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine?.split(' ')[1] ?? 0), headers, body };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) return out;
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** Builds an HTTP/1.1 request; Content-Length is added unless the headers already set framing. */
export function buildRequest(options: {
  method: string;
  path: string;
  host: string;
  headers?: Array<[string, string]>;
  body?: Buffer;
}): Buffer {
  const headers = options.headers ?? [];
  const hasFraming = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  const lines = [`${options.method} ${options.path} HTTP/1.1`, `Host: ${options.host}`, 'Connection: close'];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (!hasFraming && options.body) lines.push(`Content-Length: ${options.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), options.body ?? Buffer.alloc(0)]);
}

/**
 * Opens one connection per request, waits until all are connected (and `beforeWrite`, e.g. until
 * the server accepted them all: Node accepts one connection per event-loop turn), then writes
 * every request in one synchronous loop, so the server finds them readable at once, as with
 * many clients on kept-alive connections. fetch from the same process connects and writes one
 * by one instead, and the server then sees one request per turn.
 */
export async function sendAllAtOnce(
  url: string,
  requests: Buffer[],
  options: { beforeWrite?: () => Promise<void>; timeoutMs?: number } = {},
): Promise<RawResponse[]> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const { hostname, port } = new URL(url);
  const sockets = await Promise.all(
    requests.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port) });
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  const answers = sockets.map(
    (socket) =>
      new Promise<RawResponse>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error('raw request timed out'));
        }, timeoutMs);
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(parseResponse(Buffer.concat(chunks)));
        });
      }),
  );
  await options.beforeWrite?.();
  sockets.forEach((socket, i) => socket.write(requests[i]!));
  return Promise.all(answers);
}
