import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createOwner, servicesFor } from '../../test/helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson, spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';
import { waitFor } from '../../test/helpers/wait.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let receiver: HttpsReceiver;
let formId: string;
const servers: ServerProcess[] = [];

const env = () => ({
  DATABASE_URL: database.url,
  HOOK_ALLOW_PRIVATE_TARGETS: 'true',
  HOOK_TIMEOUT_MS: '2000',
  MAIL_RETRY_BASE_MS: '100',
  // A killed server's leases expire after this (renewed every third of it while it runs): the
  // restart sends the messages it held 3 s after the kill instead of the default 30 s.
  OUTBOX_LEASE_MS: '3000',
  SUBMIT_RATE_LIMIT_PER_MINUTE: '0',
  TELEGRAM_API_URL: `${receiver.url}/tg`,
  // The receiver's self-signed certificate, trusted as an operator would trust a private CA.
  NODE_EXTRA_CA_CERTS: receiver.caFile,
});

const formgate = (args: string[]) => runCli([...args, '--json'], env());
const ok = (args: string[]) => runCliJson(args, env());

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  receiver = await startHttpsReceiver();
  ({ form: { id: formId } } = await createOwner(servicesFor(handle)));
});

afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await receiver?.close();
  await handle?.close();
  await database?.drop();
});

describe(`integrations as an operator runs them, on ${testDialect}`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('formgate integrations add, list, test and remove print the documented JSON', async () => {
    const added = await ok(['integrations', 'add', formId, '--kind', 'discord', '--url', `${receiver.url}/cli/discord`, '--name', 'Team chat']);
    expect(added).toEqual({
      integration: { id: expect.stringMatching(/^int_/), formId, kind: 'discord', name: 'Team chat', enabled: true, createdAt: expect.stringMatching(/\.\d{3}Z$/) },
    });
    const id = added.integration.id as string;
    const telegram = await ok(['integrations', 'add', formId, '--kind', 'telegram', '--token', '42:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', '--chat-id', '7']);
    expect(telegram.integration).toMatchObject({ kind: 'telegram', name: 'Telegram', enabled: true });

    expect(await ok(['integrations', 'list', formId])).toEqual({ integrations: [added.integration, telegram.integration] });

    expect(await ok(['integrations', 'test', id])).toEqual({ sent: true });
    expect(receiver.received.filter((r) => r.url === '/cli/discord')).toHaveLength(1);
    expect(await ok(['integrations', 'test', telegram.integration.id])).toEqual({ sent: true });
    expect(receiver.received.filter((r) => r.url === '/tg/bot42:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBB/sendMessage')).toHaveLength(1);

    const bad = await formgate(['integrations', 'add', formId, '--kind', 'slack', '--url', 'http://plain.example/x']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('url: must be an https: URL');
    const missing = await formgate(['integrations', 'remove', 'int_nothere']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Integration not found.');

    expect(await ok(['integrations', 'remove', id])).toEqual({ deleted: true });
    expect(await ok(['integrations', 'remove', telegram.integration.id])).toEqual({ deleted: true });
    expect(await ok(['integrations', 'list', formId])).toEqual({ integrations: [] });
    // Ten CLI processes, each loading the services: ~10 s alone, three times that beside other suites.
  });

  it('SIGKILL after the 200 and before the platform answered: each message is delivered once after the restart', async () => {
    await ok(['integrations', 'add', formId, '--kind', 'slack', '--url', `${receiver.url}/crash`]);
    // The platform reads each request and never answers: messages are claimed and in flight, none
    // delivered, when the process dies.
    const held: ServerResponse[] = [];
    const answered: string[] = [];
    let holding = true;
    receiver.respond((req, res, body) => {
      if (req.url !== '/crash') return void res.writeHead(200).end('ok');
      if (holding) held.push(res);
      else {
        answered.push(body);
        res.writeHead(200).end('ok');
      }
    });
    const first = await spawnServer(env());
    servers.push(first);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${first.url}/v1/submit/${formId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ message: `crash ${i}` }),
      });
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { submissionId: string }).submissionId);
    }
    await waitFor(() => held.length >= 1, 30_000, 'a request held by the platform');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(answered).toEqual([]);

    holding = false;
    const second = await spawnServer(env());
    servers.push(second);
    const delivered = () => answered.map((body) => /submissions\/(sub_\w+)/.exec(JSON.parse(body).text)?.[1]);
    await waitFor(() => ids.every((id) => delivered().includes(id)), 60_000, 'every message after the restart');
    await waitFor(async () => {
      const rows = await handle.db.selectFrom('integration_messages').select('state').where('submission_id', 'in', ids).execute();
      return rows.length === ids.length && rows.every((r) => r.state === 'sent');
    }, 15_000, 'every message recorded as sent');
    expect(delivered().sort()).toEqual([...ids].sort());

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
