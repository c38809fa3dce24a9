// The HTTPS hook target of the container test (e2e/container/run.sh), the suite's own receiver:
// writes its certificate (for NODE_EXTRA_CA_CERTS in the containers) and URL to the given files,
// then prints one line per delivery, `delivery <webhook-id>`, until SIGTERM.
import { writeFileSync } from 'node:fs';
import { startHttpsReceiver } from '../../test/helpers/https-receiver.js';

const [certFile, urlFile] = process.argv.slice(2);
if (!certFile || !urlFile) throw new Error('usage: hook-receiver.ts <cert-file> <url-file>');

const receiver = await startHttpsReceiver();
receiver.respond((req, res) => {
  process.stdout.write(`delivery ${String(req.headers['webhook-id'])}\n`);
  res.writeHead(200).end('ok');
});
writeFileSync(certFile, receiver.ca, { mode: 0o644 });
writeFileSync(urlFile, receiver.url);
process.once('SIGTERM', () => {
  void receiver.close().then(() => process.exit(0));
});
