import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createOwner, servicesFor } from '../../test/helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.js';
import { spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';
import { waitFor } from '../../test/helpers/wait.js';
import { steadyLoad, submitOnce } from './load.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let receiver: HttpsReceiver;
let formId: string;
let apiKey: string;
const servers: ServerProcess[] = [];

const serverEnv = () => ({
  DATABASE_URL: database.url,
  SUBMIT_RATE_LIMIT_PER_MINUTE: '0',
  HOOK_ALLOW_PRIVATE_TARGETS: 'true',
  HOOK_TIMEOUT_MS: '1000',
  // The restarted instance takes back the dead one's claims once their lease expires.
  OUTBOX_LEASE_MS: '3000',
  NODE_EXTRA_CA_CERTS: receiver.caFile,
});

async function start(): Promise<ServerProcess> {
  const server = await spawnServer(serverEnv());
  servers.push(server);
  return server;
}

async function storedIds(): Promise<Set<string>> {
  const rows = await handle.db.selectFrom('submissions').select('id').where('form_id', '=', formId).execute();
  return new Set(rows.map((r) => r.id));
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  receiver = await startHttpsReceiver();
  ({ apiKey, form: { id: formId } } = await createOwner(servicesFor(handle)));
});

afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await receiver?.close();
  await handle?.close();
  await database?.drop();
});

describe(`crash safety on ${testDialect}`, () => {
  it('SIGKILL under load loses no answered submission, and pending hook deliveries are sent after restart', async () => {
    // While the first server lives, the hook target holds every delivery open: they are in flight
    // or still pending when the process dies.
    const held: Array<() => void> = [];
    receiver.respond((_req, res) => held.push(() => res.writeHead(200).end()));

    const first = await start();
    const hook = await fetch(`${first.url}/v1/api/hooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ formId, targetUrl: `${receiver.url}/hook` }),
    });
    expect(hook.status).toBe(201);

    const load = steadyLoad(first.url, formId, 8);
    await waitFor(() => load.answered() >= 300, 60_000, '300 answered submissions');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    await load.stop();

    const answered = load.outcomes.filter((o) => o.outcome === 200).map((o) => o.submissionId!);
    expect(answered.length).toBeGreaterThanOrEqual(300);
    const stored = await storedIds();
    const lost = answered.filter((id) => !stored.has(id));
    expect(lost).toEqual([]);

    // After the restart the target answers at once; every accepted submission reaches it.
    for (const release of held) release();
    receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    const second = await start();
    const delivered = () => new Set(receiver.received.map((r) => String(r.headers['webhook-id']).split('.')[0]));
    await waitFor(() => [...stored].every((id) => delivered().has(id)), 90_000, 'every stored submission delivered');
    expect([...stored].filter((id) => !delivered().has(id))).toEqual([]);

    // The restarted server keeps serving.
    const after = await submitOnce(second.url, formId, { after: 'restart' });
    expect(after.outcome).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('SIGTERM under load answers every request it accepted, then exits 0', async () => {
    const server = await start();
    const before = await storedIds();
    const load = steadyLoad(server.url, formId, 8);
    await waitFor(() => load.answered() >= 100, 60_000, '100 answered submissions');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await load.stop();

    const answered = new Set(load.outcomes.filter((o) => o.outcome === 200).map((o) => o.submissionId!));
    const storedNow = [...(await storedIds())].filter((id) => !before.has(id));
    // Nothing was stored without its request being answered: no in-flight request was dropped.
    expect(storedNow.filter((id) => !answered.has(id))).toEqual([]);
    expect(storedNow.length).toBe(answered.size);
    // Requests are either answered (200, or 503 while closing) or never accepted (refused).
    const unexpected = load.outcomes.filter(
      (o) => o.outcome !== 200 && o.outcome !== 503 && o.outcome !== 'ECONNREFUSED' && o.outcome !== 'ECONNRESET',
    );
    expect(unexpected).toEqual([]);
  });
});
