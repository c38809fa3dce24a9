import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/platform/db/database.js';
import { ANNOUNCE_GAP_MS, QueuedWorkAnnouncer } from '../../src/features/outbox/outbox.announcer.js';
import { OUTBOX_NOTIFY_CHANNEL } from '../../src/features/outbox/outbox-upkeep.repository.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

// PostgreSQL only: other instances hear of queued work through NOTIFY, sent after the commit.
let t: AppUnderTest;
let listener: pg.Client;
/** Every notification heard on the outbox channel, and when. */
const heard: number[] = [];
let markers = 0;

beforeAll(async () => {
  t = await buildTestApp();
  listener = new pg.Client({ connectionString: t.database.url });
  await listener.connect();
  listener.on('notification', (n) => {
    if (n.channel === OUTBOX_NOTIFY_CHANNEL) heard.push(performance.now());
    else if (n.channel === 'test_marker') markers++;
  });
  await listener.query(`listen ${OUTBOX_NOTIFY_CHANNEL}`);
  await listener.query('listen test_marker');
});
afterAll(async () => {
  await listener?.end();
  await t?.close();
});

/** Every notification sent before this call has been heard: notifications arrive in commit order. */
async function heardAllSentSoFar(): Promise<void> {
  const expected = markers + 1;
  await t.handle.pgPool!.query(`select pg_notify('test_marker', '')`);
  await waitFor(() => markers >= expected, 5000, 'the marker notification');
}

describe('NOTIFY of queued outbound work', () => {
  it('is heard once the submission is committed, and the submission is there to be read', async () => {
    const owner = await createOwner(t.services, { planId: 'pro' });
    await t.handle.db
      .insertInto('hooks')
      .values({ id: 'hook_announce0000000', account_id: owner.account.id, form_id: owner.form.id, target_url: 'https://hooks.example/in', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', created_at: new Date().toISOString() })
      .execute();
    await heardAllSentSoFar();
    const before = heard.length;
    const res = await submit(t, owner.form.id, { json: { a: 1 } });
    expect(res.status).toBe(200);
    const { submissionId } = (await res.json()) as { submissionId: string };
    await waitFor(() => heard.length > before, 5000, 'the NOTIFY');
    const stored = await t.handle.db.selectFrom('submissions').select('id').where('id', '=', submissionId).executeTakeFirst();
    expect(stored?.id).toBe(submissionId);
  });

  it('is not sent for a submission with nothing to send', async () => {
    const owner = await createOwner(t.services);
    await heardAllSentSoFar();
    const before = heard.length;
    expect((await submit(t, owner.form.id, { json: { a: 1 } })).status).toBe(200);
    await t.services.outbox.settle();
    await heardAllSentSoFar();
    expect(heard.length).toBe(before);
  });

  it('coalesces: commits announced before a NOTIFY is sent share it; the next waits for the gap', async () => {
    const announcer = new QueuedWorkAnnouncer(t.handle.db, pino({ level: 'silent' }));
    await heardAllSentSoFar();
    const before = heard.length;
    const start = performance.now();
    for (let i = 0; i < 100; i++) announcer.announce();
    await waitFor(() => heard.length > before, 5000, 'the first NOTIFY');
    for (let i = 0; i < 100; i++) announcer.announce();
    await waitFor(() => heard.length > before + 1, 5000, 'the second NOTIFY');
    await heardAllSentSoFar();
    expect(heard.length).toBe(before + 2);
    expect(heard[before + 1]! - start).toBeGreaterThanOrEqual(ANNOUNCE_GAP_MS);
    await announcer.close();
  });

  it('a NOTIFY that fails is logged, never thrown', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    // Nothing listens on port 1: the connection is refused.
    const unreachable = createDatabase('postgres://postgres@127.0.0.1:1/formgate', { poolSize: 1 });
    const announcer = new QueuedWorkAnnouncer(unreachable.db, logger);
    announcer.announce();
    await waitFor(() => lines.length > 0, 5000, 'the warning');
    await announcer.close();
    await unreachable.close();
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, msg: expect.stringContaining('NOTIFY of queued outbound work failed') });
  });
});
