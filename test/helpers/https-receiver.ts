import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import selfsigned from 'selfsigned';

export interface ReceivedHook {
  /** The request's path and query. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface HttpsReceiver {
  /** https://127.0.0.1:<port> */
  url: string;
  /** PEM of the self-signed certificate, for a client's CA option. */
  ca: string;
  /** The certificate written to a file, for NODE_EXTRA_CA_CERTS of a child process. */
  caFile: string;
  received: ReceivedHook[];
  /** Replaces how the next requests are answered. */
  respond(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): void;
  close(): Promise<void>;
}

/** A real HTTPS hook target on loopback with a certificate made for 127.0.0.1 and localhost. */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const received: ReceivedHook[] = [];
  type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
  let handler: Handler = (_req, res) => {
    res.writeHead(200).end('ok');
  };
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const caFile = join(tmpdir(), `formgate-receiver-${(server.address() as AddressInfo).port}.pem`);
  writeFileSync(caFile, pems.cert);
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: pems.cert,
    caFile,
    received,
    respond: (next) => {
      handler = next;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
