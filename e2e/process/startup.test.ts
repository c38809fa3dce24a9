import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/free-port.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { PROCESS_TEST_TIMEOUT_MS, SERVER_ENTRY, operatorEnv, spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';
import { waitFor } from '../../test/helpers/wait.js';

const packageVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

let database: TestDatabase;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await database?.drop();
});

describe(`start on ${testDialect}`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('first lines say, in words, the address, dashboard, database (no password), Redis, email, metrics and how to stop', async () => {
    // A password in the URL (PostgreSQL's trust authentication ignores it) must never be printed.
    const databaseUrl = database.url.replace('postgres://postgres@', 'postgres://postgres:s3cret-pw@');
    const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const server = await spawnServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', METRICS_PORT: '0', BASE_URL: 'https://forms.example.com', REDIS_URL: redisUrl });
    servers.push(server);
    await waitFor(() => server.output().includes('how to stop') || server.output().includes('Stop with'), 10_000, 'the last start line');
    const records = server.output().trim().split('\n').map((line) => JSON.parse(line) as { msg: string; level: number });
    const messages = records.map((r) => r.msg);
    const listen = messages.findIndex((m) => m.startsWith(`Formgate ${packageVersion} listening on http://127.0.0.1:`));
    expect(listen).toBe(0);
    expect(messages.slice(1, 9)).toEqual([
      'Dashboard: https://forms.example.com/dashboard (public URL https://forms.example.com)',
      testDialect === 'sqlite'
        ? `Database: SQLite file ${database.url.slice('sqlite:'.length)}`
        : `Database: PostgreSQL database ${new URL(database.url).pathname.slice(1)} on postgres@127.0.0.1:${new URL(database.url).port || 5432}`,
      `Redis: on, ${redisUrl}`,
      'Email: off (SMTP_URL not set; no notification emails)',
      expect.stringMatching(/^Files: local folder \/.+ \(several instances need FILES_STORAGE=s3 or one shared folder\)$/),
      'Sign-in: password log-in on, single sign-on off (OIDC_ISSUER not set); sign-up open (DASHBOARD_SIGNUP)',
      expect.stringMatching(/^Metrics: http:\/\/127\.0\.0\.1:\d+\/metrics$/),
      'Stop with Ctrl+C or SIGTERM: requests in progress finish first.',
    ]);
    expect(server.output()).not.toContain('s3cret-pw');
    // Redis answered: no warning.
    expect(records.filter((r) => r.level >= 40)).toEqual([]);

    // The metrics listener of the running process, and / sending a browser to the dashboard.
    const metricsUrl = /Metrics: (http:\/\/\S+)/.exec(messages.join('\n'))![1]!;
    const scraped = await (await fetch(metricsUrl)).text();
    expect(scraped).toContain('formgate_submissions_total{outcome="accepted"} 0');
    expect(scraped).toContain('process_cpu_user_seconds_total');
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // Not a terminal: every line is JSON for machines.
    for (const line of server.output().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('prints readable lines through pino-pretty when stdout is a terminal', async () => {
    // script(1) gives the process a pseudo-terminal.
    const child = spawn('script', ['-qfec', `${process.execPath} ${SERVER_ENTRY}`, '/dev/null'], {
      env: { ...operatorEnv(), PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: database.url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor(() => output.includes('Stop with Ctrl+C'), 30_000, 'the start lines on a terminal');
      const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
      expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: Formgate \S+ listening on http:\/\/127\.0\.0\.1:\d+\r?$/m);
      expect(plain).toMatch(/INFO: Database: /);
      expect(plain).not.toMatch(/^\{"level"/m);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('with Redis not answering: one warning line, and the server runs', async () => {
    const port = await freePort();
    const server = await spawnServer({ DATABASE_URL: database.url, LOG_LEVEL: 'info', REDIS_URL: `redis://:hidden-pw@127.0.0.1:${port}` });
    servers.push(server);
    await waitFor(() => server.output().includes('does not answer'), 10_000, 'the Redis warning');
    const warnings = server.output().trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string }).filter((r) => r.level === 40);
    expect(warnings.map((w) => w.msg)).toEqual([
      `Redis at redis://127.0.0.1:${port} does not answer: rate limits are counted per process until it does; start Redis or correct REDIS_URL.`,
    ]);
    expect(server.output()).toContain(`Redis: on, redis://127.0.0.1:${port} (not answering yet; counting in this process until it does)`);
    expect(server.output()).not.toContain('hidden-pw');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
