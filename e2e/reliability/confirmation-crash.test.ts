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
  // Confirmations only: the form has no recipients of its own.
  ({ form: { id: formId } } = await createOwner(services, { form: { autoReply: { enabled: true } } }));
});

afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await sink?.close();
  await handle?.close();
  await database?.drop();
});

describe(`confirmation email after a crash on ${testDialect}`, () => {
  it('SIGKILL after the 200 and before the SMTP server accepted: each confirmation arrives after the restart, exactly once', async () => {
    sink.holdData(true);
    const first = await start();
    const visitors = Array.from({ length: 6 }, (_, i) => `crash-visitor-${i}@example.org`);
    for (const email of visitors) {
      const res = await fetch(`${first.url}/v1/submit/${formId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ email, message: 'crash' }),
      });
      expect(res.status).toBe(200);
    }
    await waitFor(() => sink.held() >= 1, 30_000, 'a confirmation held by the SMTP server');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(sink.received).toEqual([]);

    sink.holdData(false);
    const second = await start();
    await waitFor(() => visitors.every((v) => sink.to(v).length >= 1), 60_000, 'every confirmation after the restart');
    await waitFor(async () => {
      const rows = await handle.db.selectFrom('email_messages').select('state').where('form_id', '=', formId).execute();
      return rows.length === visitors.length && rows.every((r) => r.state === 'sent');
    }, 15_000, 'every confirmation recorded as sent');
    // Admitted once before the crash, a confirmation is not counted (or skipped) again when re-claimed.
    for (const v of visitors) expect(sink.to(v)).toHaveLength(1);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
