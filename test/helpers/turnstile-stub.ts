import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Cloudflare's siteverify: tokens in `valid` verify for `secret`; `hang`
 * makes it never answer (to test timeouts). Records every call.
 */
export async function startTurnstileStub(secret: string) {
  const calls: Array<{ secret: string; response: string; remoteip: string }> = [];
  const valid = new Set<string>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const params = new URLSearchParams(body);
      const call = { secret: params.get('secret') ?? '', response: params.get('response') ?? '', remoteip: params.get('remoteip') ?? '' };
      calls.push(call);
      const success = call.secret === secret && valid.has(call.response);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success, 'error-codes': success ? [] : ['invalid-input-response'] }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    calls,
    valid,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
