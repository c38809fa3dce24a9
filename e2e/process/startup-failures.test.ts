import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/free-port.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runServer, spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';

// What the server does before it has a database, or with one each case names itself (a closed
// port, paths that cannot be one): the same on either, so e2e/vitest.config.ts runs this file once.

const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; scripts: { start: string } };
const packageVersion = packageJson.version;

let dir: string;
const servers: ServerProcess[] = [];

/** A port that was free a moment ago (nothing listens on it). */
const closedPort = freePort;

async function heldPort(): Promise<Server> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** What an operator sees when the server cannot run: one line on stderr, no stack trace, exit 1. */
function expectOneLineFailure(result: { code: number | string; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-startup-failures-'));
});
afterAll(() => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('start-up failures: one line saying what is wrong and what to do, exit 1', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('PostgreSQL unreachable', async () => {
    const port = await closedPort();
    const result = await runServer({ DATABASE_URL: `postgres://formgate:pw@127.0.0.1:${port}/formgate` });
    expectOneLineFailure(result, new RegExp(`^error: Cannot reach PostgreSQL database formgate on formgate@127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): start PostgreSQL or correct`));
    expect(result.stderr).not.toContain(':pw@');
  });

  it('SQLite path not writable (its folder cannot be created), through `formgate serve`', async () => {
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    const path = join(dir, 'a-file', 'data', 'formgate.db');
    const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${path}` });
    expectOneLineFailure(result, new RegExp(`Cannot create or write the SQLite database ${path.replace(/[.]/g, '\\.')} \\(ENOTDIR\\): make sure its folder .* or set DATABASE_URL`));
  });

  it('SQLite path that cannot be opened as a file (a folder)', async () => {
    const result = await runServer({ DATABASE_URL: `sqlite:${dir}` });
    expectOneLineFailure(result, /Cannot create or write the SQLite database .* \(SQLITE_CANTOPEN\)/);
  });

  it('SQLite file that is not a database', async () => {
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'These are my notes, not a database. '.repeat(200));
    const result = await runServer({ DATABASE_URL: `sqlite:${path}` });
    expectOneLineFailure(result, /is not a usable SQLite database \(SQLITE_NOTADB\): point DATABASE_URL at a Formgate database, or move the file away/);
    expect(readFileSync(path, 'utf8')).toMatch(/^These are my notes/);
  });

  it('port in use, and metrics port in use', async () => {
    const held = await heldPort();
    try {
      const port = (held.address() as AddressInfo).port;
      const web = await runServer({ DATABASE_URL: `sqlite:${join(dir, 'port.db')}`, PORT: String(port) });
      expectOneLineFailure(web, new RegExp(`^error: Port ${port} on 127\\.0\\.0\\.1 is already in use .*set PORT to a free port\\.$`));
      const metrics = await runServer({ DATABASE_URL: `sqlite:${join(dir, 'port.db')}`, METRICS_PORT: String(port) });
      expectOneLineFailure(metrics, new RegExp(`^error: Port ${port} on 127\\.0\\.0\\.1 is already in use .*set METRICS_PORT to a free port\\.$`));
    } finally {
      held.close();
    }
  });

  it('invalid configuration names the variable', async () => {
    const result = await runServer({ METRICS_PORT: 'ninety' });
    expectOneLineFailure(result, /METRICS_PORT/);
  });
});

describe('version', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('formgate --version prints the package version, which is also the OpenAPI info.version', async () => {
    const result = await runCli(['--version'], {});
    expect(result).toMatchObject({ code: 0, stdout: `${packageVersion}\n`, stderr: '' });
    const server = await spawnServer({ DATABASE_URL: `sqlite:${join(dir, 'version.db')}` });
    servers.push(server);
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { info: { version: string } };
    expect(doc.info.version).toBe(packageVersion);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

describe('Node flags', () => {
  // The bench reads them from the start script (bench/lib.ts), so both ways of starting the
  // server must agree for its figures to hold for the formgate command too.
  it('npm start and the formgate command run Node with the same flags', () => {
    const startFlags = /\bnode ((?:--\S+ )*)dist\/src\/server\.js/.exec(packageJson.scripts.start)?.[1]?.trim();
    expect(startFlags).toMatch(/^--max-semi-space-size=\d+ /);
    const shebang = readFileSync('bin/formgate.js', 'utf8').split('\n', 1)[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${startFlags}`);
  });
});
