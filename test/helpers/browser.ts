import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (no browser download), headless, with the network chatter turned off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Serves one HTML page on loopback, like a customer's website embedding a form; `files` adds
 * other paths (path → JavaScript), e.g. a bundled test app.
 */
export async function servePage(html: string, files: Record<string, string> = {}): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const file = files[(req.url ?? '/').split('?')[0]!];
    if (file !== undefined) res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(file);
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
