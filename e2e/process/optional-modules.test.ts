import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/services.js';
import { PNG, multipart } from '../../test/files/fixtures.js';
import { startClamd, type TestClamd } from '../../test/helpers/clamd.js';
import { DashboardClient } from '../../test/helpers/dashboard-client.js';
import { testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { createAccount, createOwner, useMigratedDatabase } from '../../test/helpers/factories.js';
import { freePort } from '../../test/helpers/free-port.js';
import { startOidcProvider, type TestOidcProvider } from '../../test/helpers/oidc-provider.js';
import { startS3Server, type TestS3Server } from '../../test/helpers/s3-server.js';
import { PROCESS_TEST_TIMEOUT_MS, spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';

/** What an instance loads only once it is configured for it and asked: how each module's specifier begins or ends. */
const OPTIONAL = {
  mcp: '@modelcontextprotocol/sdk/',
  oidc: 'openid-client',
  s3: '@aws-sdk/',
  clamd: '/clamd.scanner.js',
  fileType: 'file-type',
};

const CALLBACK = '/dashboard/auth/oidc/callback';

let database: TestDatabase;
let services: Services;
let provider: TestOidcProvider;
let s3: TestS3Server;
let clamd: TestClamd;
let port: number;
const dir = mkdtempSync(join(tmpdir(), 'formgate-optional-'));

useMigratedDatabase((opened) => ({ database, services } = opened));

beforeAll(async () => {
  port = await freePort();
  [provider, s3, clamd] = await Promise.all([startOidcProvider(`http://127.0.0.1:${port}${CALLBACK}`), startS3Server(), freePort().then((p) => startClamd(p))]);
}, 60_000);

afterAll(async () => {
  await Promise.all([provider?.close(), s3?.close(), clamd?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the compiled server with `env`, hands it to `use`, and returns the module specifiers it resolved. */
async function importsOfARun(name: string, env: Record<string, string>, use: (server: ServerProcess) => Promise<void>): Promise<string[]> {
  const log = join(dir, `${name}.log`);
  const server = await spawnServer({
    DATABASE_URL: database.url,
    FILES_DIR: join(dir, 'files'),
    FORMGATE_IMPORT_LOG: log,
    NODE_OPTIONS: `--import=${resolve('test/helpers/import-log.mjs')}`,
    ...env,
  });
  try {
    await use(server);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  return readFileSync(log, 'utf8').split('\n');
}

const loaded = (imports: string[], part: string) => imports.some((s) => s.startsWith(part) || s.endsWith(part));

describe(`optional modules on ${testDialect}`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('with default settings, submissions, the dashboard and the health checks load none of the MCP, OIDC, S3 or clamd modules', async () => {
    const owner = await createOwner(services);
    const imports = await importsOfARun('default', {}, async (server) => {
      const submitted = await fetch(`${server.url}/v1/submit/${owner.form.id}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"m":1}' });
      expect(submitted.status).toBe(200);
      expect((await fetch(`${server.url}/dashboard/login`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    });
    // The log is written: the server's own packages are in it.
    expect(loaded(imports, 'fastify')).toBe(true);
    expect(Object.values(OPTIONAL).filter((specifier) => loaded(imports, specifier))).toEqual([]);
  });

  it('each loads with its first use, and works: an MCP request, a single sign-on, a file stored in S3 and scanned by clamd', async () => {
    const account = await createAccount(services, { password: 'a good long password', emailConfirmed: true });
    const owner = await createOwner(services, { form: { files: 'store', fileTypes: ['images'] } });
    const imports = await importsOfARun(
      'used',
      {
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        CLAMD_URL: `tcp://127.0.0.1:${clamd.port}`,
        ...s3.env,
      },
      async (server) => {
        const client = new Client({ name: 'formgate-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${owner.apiKey}` } } }));
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('list_forms');
        await client.close();

        provider.signInAs({ sub: 'optional-modules', email: account.email, email_verified: true });
        const browser = new DashboardClient(server.url);
        let location = (await browser.get('/dashboard/auth/oidc')).res.headers.get('location')!;
        expect(location.startsWith(`${provider.issuer}/`)).toBe(true);
        const atProvider = new DashboardClient(provider.issuer);
        while (location.startsWith(`${provider.issuer}/`)) {
          location = new URL((await atProvider.get(location.slice(provider.issuer.length))).res.headers.get('location')!, provider.issuer).href;
        }
        const back = await browser.get(location.slice(server.url.length));
        expect(back.res.status).toBe(303);
        expect(back.res.headers.get('location')).toBe('/dashboard/forms');

        const body = multipart({ message: 'hi' }, [{ field: 'file', name: 'a.png', content: PNG }]);
        const submitted = await fetch(`${server.url}/v1/submit/${owner.form.id}`, { method: 'POST', headers: { accept: 'application/json' }, body });
        expect(submitted.status).toBe(200);
        const { submissionId } = (await submitted.json()) as { submissionId: string };
        // Scanned clean: clamd read it back from the S3 store.
        const file = await services.handle.db.selectFrom('files').select(['type', 'scan_state']).where('submission_id', '=', submissionId).executeTakeFirstOrThrow();
        expect(file).toEqual({ type: 'image/png', scan_state: 'clean' });
      },
    );
    expect(Object.entries(OPTIONAL).filter(([, specifier]) => !loaded(imports, specifier))).toEqual([]);
  });
});
