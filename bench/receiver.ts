import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import selfsigned from 'selfsigned';

/** A loopback HTTPS hook target that answers after `delayMs`, counting deliveries. */
export async function startReceiver(delayMs: number) {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  let received = 0;
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      setTimeout(() => res.writeHead(200).end(), delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const caFile = join(tmpdir(), `formgate-bench-ca-${(server.address() as AddressInfo).port}.pem`);
  writeFileSync(caFile, pems.cert);
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
