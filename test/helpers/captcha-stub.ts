import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the siteverify of Turnstile, hCaptcha or reCAPTCHA (one protocol):
 * tokens in `valid` verify for `secret`; a token in `scores` answers with that v3 score (reCAPTCHA
 * v3 and hCaptcha Enterprise send one). Records every call.
 */
export async function startCaptchaStub(secret: string) {
  const calls: Array<{ secret: string; response: string; remoteip: string }> = [];
  const valid = new Set<string>();
  const scores = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const params = new URLSearchParams(body);
      const call = { secret: params.get('secret') ?? '', response: params.get('response') ?? '', remoteip: params.get('remoteip') ?? '' };
      calls.push(call);
      const success = call.secret === secret && valid.has(call.response);
      const score = scores.get(call.response);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success, ...(score === undefined ? {} : { score, action: 'submit' }), 'error-codes': success ? [] : ['invalid-input-response'] }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    calls,
    valid,
    scores,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
