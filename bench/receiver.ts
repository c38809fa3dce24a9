import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { Tally } from './tally.js';

/**
 * What Formgate needs to deliver to a receiver of this file (`caFile`): its self-signed
 * certificate trusted, a loopback target allowed, and a timeout above the slowest receiver's delay.
 */
export function receiverEnv(caFile: string): Record<string, string> {
  return { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '5000', NODE_EXTRA_CA_CERTS: caFile };
}

/**
 * A loopback HTTPS hook target that answers after `delayMs`, counting deliveries and tallying
 * them by the submission ID of their `webhook-id` header (`<submissionId>.<hookId>`).
 */
export async function startReceiver(delayMs: number) {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  let received = 0;
  const bySubmission = new Tally();
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      const webhookId = req.headers['webhook-id'];
      if (typeof webhookId === 'string') bySubmission.add(webhookId.split('.')[0]!);
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
    /** Deliveries per submission ID since the last reset. */
    bySubmission,
    close: async () => {
      server.closeAllConnections();
      server.close();
      // Else every run leaves its certificates in tmpdir (a server reads NODE_EXTRA_CA_CERTS only as it starts).
      rmSync(caFile, { force: true });
    },
  };
}
