import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { startTestApp } from '../../test/helpers/app.js';
import { createOwner, createForm, servicesFor } from '../../test/helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { startPrivateRedis, type PrivateRedis } from '../../test/helpers/redis-server.js';
import { spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';
import { slowBodyHead, slowClient, slowHeaderHead } from '../../test/helpers/slow-client.js';
import { startTcpProxy } from '../../test/helpers/tcp-proxy.js';
import { waitFor } from '../../test/helpers/wait.js';
import { steadyLoad, type SubmitOutcome } from './load.js';

// Each case counts what matters: submissions answered 200 against rows stored (every answered
// one must be stored), requests refused, time to recover, time to exit. The figures are printed
// (one "FAULT" line per case) and copied into SECURITY.md.

let database: TestDatabase;
let handle: DatabaseHandle;
let accountId: string;
const servers: ServerProcess[] = [];
let redis: PrivateRedis | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  ({ account: { id: accountId } } = await createOwner(servicesFor(handle)));
});

afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await redis?.stop();
  await handle?.close();
  await database?.drop();
});

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await spawnServer({ DATABASE_URL: database.url, SUBMIT_RATE_LIMIT_PER_MINUTE: '0', ...env });
  servers.push(server);
  return server;
}

async function newFormId(): Promise<string> {
  return (await createForm(servicesFor(handle), accountId)).id;
}

/** Answered-200 IDs that are not stored (must be none), and the counts. */
async function reconcile(formId: string, outcomes: SubmitOutcome[], db: DatabaseHandle = handle) {
  const rows = await db.db.selectFrom('submissions').select('id').where('form_id', '=', formId).execute();
  const stored = new Set(rows.map((r) => r.id));
  const answered = outcomes.filter((o) => o.outcome === 200).map((o) => o.submissionId!);
  return {
    answered: answered.length,
    stored: stored.size,
    lost: answered.filter((id) => !stored.has(id)),
    refused: outcomes.length - answered.length,
  };
}

function report(name: string, figures: Record<string, unknown>): void {
  process.stdout.write(`FAULT ${testDialect} ${name}: ${JSON.stringify(figures)}\n`);
}

describe(`fault injection on ${testDialect}`, () => {
  it('Redis stopped and restarted under submit load: every submission served and stored, limits back on Redis', async () => {
    redis = await startPrivateRedis();
    const server = await start({ REDIS_URL: redis.url, SUBMIT_RATE_LIMIT_PER_MINUTE: '1000000' });
    const formId = await newFormId();
    const load = steadyLoad(server.url, formId, 8);
    await waitFor(() => load.answered() >= 100, 30_000, '100 answered before the outage');
    await redis.stop();
    const stoppedAt = load.outcomes.length;
    await waitFor(() => load.answered() >= 300, 30_000, '200 answered during the outage');
    const duringOutage = load.outcomes.slice(stoppedAt);
    const restartedAt = Date.now();
    await redis.start();
    await waitFor(async () => ((await (await fetch(`${server.url}/readyz`)).json()) as { status: string }).status === 'ok', 15_000, 'readyz ok');
    const recoveryMs = Date.now() - restartedAt;
    await waitFor(() => load.answered() >= 400, 30_000, '100 answered after the outage');
    await load.stop();
    const counts = await reconcile(formId, load.outcomes);
    report('redis-outage', { ...counts, lost: counts.lost.length, answeredDuringOutage: duringOutage.filter((o) => o.outcome === 200).length, recoveryMs });
    expect(duringOutage.every((o) => o.outcome === 200)).toBe(true);
    expect(counts.lost).toEqual([]);
    expect(counts.refused).toBe(0);
    expect(counts.stored).toBe(counts.answered);
    expect(recoveryMs).toBeLessThan(5000);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('the database stops answering for 3 s under submit load: errors or waits, no hang, nothing answered is lost', async () => {
    const formId = await newFormId();
    if (testDialect === 'postgres') {
      // In-process app on a pool reaching PostgreSQL through a proxy that freezes; 1 s timeouts.
      const target = new URL(database.url);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      const proxied = new URL(database.url);
      proxied.port = String(proxy.port);
      const url = proxied.toString();
      const app = await startTestApp({
        database: { ...database, url, open: () => createDatabase(url, { queryTimeoutMs: 1000, connectTimeoutMs: 1000 }) },
      });
      try {
        const load = steadyLoad(app.url, formId, 8);
        await waitFor(() => load.answered() >= 100, 30_000, '100 answered before the stall');
        const stalledAt = Date.now();
        proxy.pause();
        const readyDuringStall = await fetch(`${app.url}/readyz`);
        expect(readyDuringStall.status).toBe(503);
        expect(await readyDuringStall.json()).toEqual({ status: 'down', checks: { database: 'down', redis: 'off' } });
        const waited = Date.now() - stalledAt;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 3000 - waited))); // the fault's duration, not a synchronisation
        proxy.resume();
        const resumedAt = Date.now();
        const answeredBefore = load.answered();
        await waitFor(() => load.answered() >= answeredBefore + 50, 20_000, 'submissions answered again');
        const recoveryMs = Date.now() - resumedAt;
        await load.stop();
        const counts = await reconcile(formId, load.outcomes);
        const errors = load.outcomes.filter((o) => o.outcome === 500).length;
        report('database-stall', { ...counts, lost: counts.lost.length, errors500: errors, stallMs: resumedAt - stalledAt, recoveryMs });
        expect(counts.lost).toEqual([]);
        // Every refusal is an answered error (500), none a dropped connection.
        expect(load.outcomes.every((o) => o.outcome === 200 || o.outcome === 500)).toBe(true);
        expect(errors).toBeGreaterThan(0);
        expect(recoveryMs).toBeLessThan(5000);
      } finally {
        await app.close();
        await proxy.close();
      }
    } else {
      // SQLite: another process holds the write lock; writers wait (busy timeout 5 s) and go on.
      const server = await start({});
      const load = steadyLoad(server.url, formId, 8);
      await waitFor(() => load.answered() >= 100, 30_000, '100 answered before the stall');
      const locker = new Database(database.url.slice('sqlite:'.length));
      locker.exec('BEGIN EXCLUSIVE');
      const stalledAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 3000)); // the fault's duration
      locker.exec('COMMIT');
      locker.close();
      const resumedAt = Date.now();
      const answeredBefore = load.answered();
      await waitFor(() => load.answered() >= answeredBefore + 50, 20_000, 'submissions answered again');
      const recoveryMs = Date.now() - resumedAt;
      await load.stop();
      const counts = await reconcile(formId, load.outcomes);
      report('database-stall', { ...counts, lost: counts.lost.length, stallMs: resumedAt - stalledAt, recoveryMs });
      expect(counts.lost).toEqual([]);
      expect(counts.refused).toBe(0);
      expect(recoveryMs).toBeLessThan(5000);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  if (testDialect === 'postgres') {
    it('PostgreSQL backends terminated under load: the pool reconnects, nothing answered is lost', async () => {
      const appName = `fgfault_${Date.now()}`;
      const target = new URL(database.url);
      target.searchParams.set('application_name', appName);
      const url = target.toString();
      const server = await spawnServer({ DATABASE_URL: url, SUBMIT_RATE_LIMIT_PER_MINUTE: '0' });
      servers.push(server);
      const formId = await newFormId();
      const load = steadyLoad(server.url, formId, 8);
      await waitFor(() => load.answered() >= 100, 30_000, '100 answered before the kills');
      let terminated = 0;
      for (let round = 0; round < 3; round++) {
        const killed = await handle.db
          .selectFrom('pg_stat_activity' as never)
          .select((eb) => eb.fn<boolean>('pg_terminate_backend', [eb.ref('pid' as never)]).as('t'))
          .where('application_name' as never, '=', appName as never)
          .execute();
        terminated += killed.length;
        const answered = load.answered();
        await waitFor(() => load.answered() >= answered + 30, 20_000, 'answered again after the kill');
      }
      const lastKillAt = Date.now();
      const answered = load.answered();
      await waitFor(() => load.answered() >= answered + 50, 20_000, 'steady again');
      const recoveryMs = Date.now() - lastKillAt;
      await load.stop();
      const counts = await reconcile(formId, load.outcomes);
      report('backends-terminated', { ...counts, lost: counts.lost.length, terminated, recoveryMs });
      expect(terminated).toBeGreaterThan(0);
      expect(counts.lost).toEqual([]);
      expect(load.outcomes.every((o) => o.outcome === 200 || o.outcome === 500)).toBe(true);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    });
  }

  it('300 slow-body and slow-header clients beside normal traffic: each cut off with 408, normal submits served', async () => {
    const server = await start({ REQUEST_TIMEOUT_MS: '2000' });
    const formId = await newFormId();
    const host = new URL(server.url).host;
    const slow = [
      ...Array.from({ length: 150 }, () => slowClient(server.url, slowBodyHead(host, formId), 'a', 500, 20_000)),
      ...Array.from({ length: 150 }, () => slowClient(server.url, slowHeaderHead(host, formId), 'X-Slow: 1\r\n', 500, 20_000)),
    ];
    const load = steadyLoad(server.url, formId, 4);
    const results = await Promise.all(slow);
    await load.stop();
    const counts = await reconcile(formId, load.outcomes);
    const closedAfter = results.map((r) => r.closedAfterMs).sort((a, b) => a - b);
    report('slow-clients', { ...counts, lost: counts.lost.length, slow: results.length, answered408: results.filter((r) => r.status === 408).length, slowestCutMs: closedAfter.at(-1) });
    expect(results.every((r) => r.status === 408 && JSON.parse(r.body).error === 'request_timeout')).toBe(true);
    expect(closedAfter.at(-1)).toBeLessThan(2000 + 2000);
    expect(counts.answered).toBeGreaterThan(50);
    expect(counts.refused).toBe(0);
    expect(counts.lost).toEqual([]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('SIGTERM with 100 slow clients open: exits after SHUTDOWN_TIMEOUT_MS, every answered submission stored', async () => {
    const server = await start({ REQUEST_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '2000' });
    const formId = await newFormId();
    const host = new URL(server.url).host;
    const slow = Array.from({ length: 100 }, () => slowClient(server.url, slowBodyHead(host, formId), 'a', 1000, 20_000));
    const load = steadyLoad(server.url, formId, 8);
    await waitFor(() => load.answered() >= 100, 30_000, '100 answered');
    const signalledAt = Date.now();
    const beforeSignal = load.outcomes.length;
    server.child.kill('SIGTERM');
    const code = await server.exited;
    const exitMs = Date.now() - signalledAt;
    await load.stop();
    const slowResults = await Promise.all(slow);
    const counts = await reconcile(formId, load.outcomes);
    // Requests sent after the listener closed are refused by the OS (the load keeps trying until stopped).
    const refusedBeforeSignal = load.outcomes.slice(0, beforeSignal).filter((o) => o.outcome !== 200).length;
    report('sigterm-slow-clients', { answered: counts.answered, stored: counts.stored, lost: counts.lost.length, refusedBeforeSignal, exitMs, exitCode: code, slowClosed: slowResults.length });
    expect(refusedBeforeSignal).toBe(0);
    expect(code).toBe(0);
    expect(exitMs).toBeGreaterThanOrEqual(1900);
    expect(exitMs).toBeLessThan(2000 + 3000);
    expect(counts.lost).toEqual([]);
    // A submission in flight at the signal may be stored without its answer getting out; never the reverse.
    expect(counts.stored).toBeGreaterThanOrEqual(counts.answered);
  });
});
