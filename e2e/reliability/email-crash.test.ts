import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createOwner, servicesFor } from '../../test/helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { waitFor } from '../../test/helpers/wait.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let sink: SmtpSink;
let formId: string;
const recipient = 'owner-inbox@example.net';
const servers: ServerProcess[] = [];
// The restarted instance takes back the dead one's claims once their lease expires.
const OUTBOX_LEASE_MS = '3000';

async function start(): Promise<ServerProcess> {
  const server = await spawnServer({ DATABASE_URL: database.url, SUBMIT_RATE_LIMIT_PER_MINUTE: '0', SMTP_URL: sink.url, MAIL_RETRY_BASE_MS: '200', OUTBOX_LEASE_MS: OUTBOX_LEASE_MS });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  sink = await startSmtpSink();
  const services = servicesFor(handle);
  ({ form: { id: formId } } = await createOwner(services));
  await services.notifications.setRecipients(formId, [recipient], { verified: true });
});

afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await sink?.close();
  await handle?.close();
  await database?.drop();
});

describe(`email after a crash on ${testDialect}`, () => {
  it('SIGKILL after the 200 and before the SMTP server accepted: every email arrives after the restart, exactly once', async () => {
    // The SMTP server reads each message and never answers: the emails are claimed and in
    // flight, none accepted, when the process dies.
    sink.holdData(true);
    const first = await start();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${first.url}/v1/submit/${formId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ message: `crash ${i}` }),
      });
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { submissionId: string }).submissionId);
    }
    await waitFor(() => sink.held() >= 1, 30_000, 'a message held by the SMTP server');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(sink.received).toEqual([]);
    const states = await handle.db.selectFrom('email_messages').select('state').where('form_id', '=', formId).execute();
    expect(states.some((s) => s.state === 'sending')).toBe(true);

    sink.holdData(false);
    const second = await start();
    const arrived = () => sink.to(recipient).map((m) => String(m.parsed.headers.get('x-formgate-submission-id')));
    await waitFor(() => ids.every((id) => arrived().includes(id)), 60_000, 'every email after the restart');
    await waitFor(async () => {
      const rows = await handle.db.selectFrom('email_messages').select('state').where('form_id', '=', formId).execute();
      return rows.length === ids.length && rows.every((r) => r.state === 'sent');
    }, 15_000, 'every message recorded as sent');
    expect(arrived().sort()).toEqual([...ids].sort());

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
