import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoMinus, nowIso } from '../../src/platform/lib/time.js';
import { SubmissionLifecycleService } from '../../src/features/retention/retention.service.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createAccount, createForm, createOwner, insertSubmissions } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { countStored, JSON_ACCEPT, storedSubmission, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let receiver: HttpsReceiver;
let t: AppUnderTest;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000' }, hookTransport: { ca: receiver.ca } });
  // The app starts a purge as it comes up, and does not wait for it. On a loaded machine that
  // purge can read the forms only after the first test has made its own and take their expired
  // rows before the test's purge counts them, leaving its count short. Joining it here leaves the
  // tests the only purges; the next background one is an hour away.
  await t.services.lifecycle.purgeExpiredSubmissions();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const DAY = 24 * 60 * 60 * 1000;
const ids = async (formId: string) =>
  (await t.handle.db.selectFrom('submissions').select('id').where('form_id', '=', formId).orderBy('id').execute()).map((r) => r.id).sort();

describe('retention purge', () => {
  it('deletes exactly the rows past each form\'s window, spam or not, in transactions of at most the batch size', async () => {
    const owner = await createOwner(t.services, { form: { retentionDays: 30 } });
    const keepAll = await createForm(t.services, owner.account.id); // no retention
    const week = await createForm(t.services, owner.account.id, { retentionDays: 7 });
    const now = nowIso();
    const at = (days: number, ms = 0) => isoMinus(now, days * DAY + ms);
    const old30 = await insertSubmissions(t.services, owner.form.id, Array.from({ length: 23 }, (_, i) => ({ createdAt: at(30, 1 + i), isSpam: i % 2 === 0 })));
    const young30 = await insertSubmissions(t.services, owner.form.id, [{ createdAt: at(30, -1000) }, { createdAt: at(29) }, { createdAt: now }]);
    const old7 = await insertSubmissions(t.services, week.id, Array.from({ length: 5 }, () => ({ createdAt: at(8) })));
    const young7 = await insertSubmissions(t.services, week.id, [{ createdAt: at(6) }]);
    const ancient = await insertSubmissions(t.services, keepAll.id, [{ createdAt: at(5000) }]);
    expect(old30).toHaveLength(23);

    const small = new SubmissionLifecycleService(t.handle, t.services.forms, t.services.outbox.queue, pino({ level: 'silent' }), { batchSize: 10 });
    const report = await small.purgeExpiredSubmissions(now);
    expect(report.deleted).toBe(28);
    expect([...report.batches].sort((a, b) => a - b)).toEqual([3, 5, 10, 10]); // forms in any order
    expect(await ids(owner.form.id)).toEqual([...young30].sort());
    expect(await ids(week.id)).toEqual(young7);
    expect(await ids(keepAll.id)).toEqual(ancient);
    expect((await small.purgeExpiredSubmissions(now)).deleted).toBe(0);
    expect(() => new SubmissionLifecycleService(t.handle, t.services.forms, t.services.outbox.queue, pino({ level: 'silent' }), { batchSize: 1001 })).toThrow();
  });

  it('takes queued hook work with the rows, and runs at most 1000 rows a transaction by default (25 on SQLite)', async () => {
    const owner = await createOwner(t.services, { planId: 'pro', form: { retentionDays: 1 } });
    await t.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/purge` });
    const old = await insertSubmissions(t.services, owner.form.id, Array.from({ length: 1203 }, () => ({ createdAt: isoMinus(nowIso(), 2 * DAY) })));
    // Queued work for them, as if the dispatcher had not got to it yet.
    await t.handle.db.insertInto('outbox').values(old.slice(0, 50).map((id) => ({ submission_id: id, created_at: nowIso() }))).execute();
    const report = await t.services.lifecycle.purgeExpiredSubmissions();
    expect(t.services.lifecycle.batchSize).toBe(t.handle.dialect === 'sqlite' ? 25 : 1000);
    expect(report.batches.every((n) => n <= t.services.lifecycle.batchSize)).toBe(true);
    expect(Math.max(...report.batches)).toBe(t.services.lifecycle.batchSize);
    expect(report.batches.reduce((a, b) => a + b, 0)).toBe(report.deleted);
    expect(report.deleted).toBeGreaterThanOrEqual(1203);
    expect(await countStored(t, owner.form.id)).toBe(0);
    expect(await t.handle.db.selectFrom('outbox').select('submission_id').where('submission_id', 'in', old.slice(0, 50)).execute()).toEqual([]);
  });

  it('purges while submissions keep arriving: every answered submission is stored, only expired rows go', async () => {
    const owner = await createOwner(t.services, { form: { retentionDays: 2 } });
    const expired = await insertSubmissions(t.services, owner.form.id, Array.from({ length: 400 }, () => ({ createdAt: isoMinus(nowIso(), 3 * DAY) })));
    const kept = await insertSubmissions(t.services, owner.form.id, [{ createdAt: isoMinus(nowIso(), DAY) }]);
    const purger = new SubmissionLifecycleService(t.handle, t.services.forms, t.services.outbox.queue, pino({ level: 'silent' }), { batchSize: 25 });
    const purging = purger.purgeExpiredSubmissions();
    const answers = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const res = await submit(t, owner.form.id, { json: { i } }, JSON_ACCEPT);
        expect(res.status).toBe(200);
        return ((await res.json()) as { submissionId: string }).submissionId;
      }),
    );
    const report = await purging;
    expect(report.batches.length).toBeGreaterThanOrEqual(16);
    expect(await ids(owner.form.id)).toEqual([...kept, ...answers].sort());
    expect(expired).toHaveLength(400);
  });

  it('a server shutting down stops its purge after the current batch; the next run resumes it', async () => {
    const owner = await createOwner(t.services, { form: { retentionDays: 1 } });
    // 160 of SQLite's 25-row transactions, each followed by a pause of nine times its length: the
    // purge runs for a second or more on any machine, far longer than the 20 ms between looks.
    const rows = 4000;
    await insertSubmissions(t.services, owner.form.id, Array.from({ length: rows }, () => ({ createdAt: isoMinus(nowIso(), 2 * DAY) })));
    const other = await buildTestApp({ database: t.database });
    await waitFor(async () => (await countStored(t, owner.form.id)) < rows, 10_000, 'the purge to start');
    const closing = performance.now();
    await other.close();
    expect(performance.now() - closing).toBeLessThan(5000);
    const left = await countStored(t, owner.form.id);
    expect(left).toBeGreaterThan(0);
    expect((await t.services.lifecycle.purgeExpiredSubmissions()).deleted).toBeGreaterThanOrEqual(left);
    expect(await countStored(t, owner.form.id)).toBe(0);
  }, 90_000);

  it('runs in the background when the server is ready and then every RETENTION_PURGE_INTERVAL_MS', async () => {
    const owner = await createOwner(t.services, { form: { retentionDays: 3 } });
    await insertSubmissions(t.services, owner.form.id, [{ createdAt: isoMinus(nowIso(), 4 * DAY) }]);
    const other = await buildTestApp({ database: t.database, env: { RETENTION_PURGE_INTERVAL_MS: '1000' } });
    try {
      await waitFor(async () => (await countStored(t, owner.form.id)) === 0, 10_000, 'the startup purge');
      const [young] = await insertSubmissions(t.services, owner.form.id, [{ createdAt: isoMinus(nowIso(), 2 * DAY) }, { createdAt: isoMinus(nowIso(), 5 * DAY) }]);
      await waitFor(async () => (await countStored(t, owner.form.id)) === 1, 10_000, 'the next periodic purge');
      expect(await storedSubmission(t, young!)).toBeDefined();
    } finally {
      await other.close();
    }
  });
});

describe('erasure by email', () => {
  it('deletes exactly the account\'s submissions with a field equal to the address (any case), with their queued deliveries', async () => {
    const owner = await createOwner(t.services, { planId: 'pro' });
    const second = await createForm(t.services, owner.account.id);
    const stranger = await createOwner(t.services);
    const hook = await t.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/erase` });
    const now = nowIso();
    const [m1, m2, m3] = await insertSubmissions(t.services, owner.form.id, [
      { createdAt: now, payload: { email: 'Ada@Example.com', msg: 'hi' } },
      { createdAt: now, payload: { contact: ' ada@example.COM ' } },
      { createdAt: now, payload: { emails: ['x@y.z', 'ADA@example.com'] } },
    ]);
    const [m4] = await insertSubmissions(t.services, second.id, [{ createdAt: now, payload: { reply_to: 'ada@example.com' }, isSpam: true }]);
    const kept = await insertSubmissions(t.services, owner.form.id, [
      { createdAt: now, payload: { email: 'ada@example.com.au' } },
      { createdAt: now, payload: { message: 'write to ada@example.com please' } },
      { createdAt: now, payload: { email: 'bada@example.com' } },
      { createdAt: now, payload: { n: 5 } },
    ]);
    const theirs = await insertSubmissions(t.services, stranger.form.id, [{ createdAt: now, payload: { email: 'ada@example.com' } }]);
    // A pending delivery and an outbox row for erased submissions.
    await t.handle.db.insertInto('hook_deliveries').values({ id: `${m1}.${hook.hook.id}`, hook_id: hook.hook.id, submission_id: m1!, state: 'pending', created_at: now }).execute();
    await t.handle.db.insertInto('outbox').values({ submission_id: m2!, created_at: now }).execute();

    const report = await t.services.lifecycle.eraseByEmail(owner.account.id, 'ADA@example.com');
    expect(report.deleted).toBe(4);
    for (const id of [m1, m2, m3, m4]) expect(await storedSubmission(t, id!)).toBeUndefined();
    expect([...(await ids(owner.form.id))]).toEqual([...kept].sort());
    expect(await ids(stranger.form.id)).toEqual(theirs);
    expect(await t.handle.db.selectFrom('hook_deliveries').select('id').where('submission_id', '=', m1!).execute()).toEqual([]);
    expect(await t.handle.db.selectFrom('outbox').select('submission_id').where('submission_id', '=', m2!).execute()).toEqual([]);
    await expect(t.services.lifecycle.eraseByEmail(owner.account.id, 'not an address')).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { email: expect.any(String) } });
  });

  it('finds addresses that need JSON escaping or are not ASCII', async () => {
    const owner = await createOwner(t.services);
    const now = nowIso();
    const [quoted, unicode] = await insertSubmissions(t.services, owner.form.id, [
      { createdAt: now, payload: { email: 'o"neil@example.com' } },
      { createdAt: now, payload: { email: 'JOSÉ@example.com' } },
    ]);
    expect((await t.services.lifecycle.eraseByEmail(owner.account.id, 'O"Neil@example.com')).deleted).toBe(1);
    expect((await t.services.lifecycle.eraseByEmail(owner.account.id, 'josé@example.com')).deleted).toBe(1);
    expect(await storedSubmission(t, quoted!)).toBeUndefined();
    expect(await storedSubmission(t, unicode!)).toBeUndefined();
  });
});

describe('deleting a form', () => {
  it('removes its submissions, hooks, deliveries, idempotency records and queued work, and nothing of other forms', async () => {
    const owner = await createOwner(t.services, { planId: 'pro' });
    const sibling = await createForm(t.services, owner.account.id);
    const hook = await t.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/gone` });
    for (let i = 0; i < 3; i++) {
      expect((await submit(t, owner.form.id, { json: { i } }, { ...JSON_ACCEPT, 'idempotency-key': `k${i}` })).status).toBe(200);
    }
    await submit(t, sibling.id, { json: { keep: true } }, { ...JSON_ACCEPT, 'idempotency-key': 'k0' });
    const queued = await insertSubmissions(t.services, owner.form.id, [{ createdAt: nowIso() }]);
    await t.handle.db.insertInto('outbox').values({ submission_id: queued[0]!, created_at: nowIso() }).execute();

    const other = await createOwner(t.services);
    await expect(t.services.lifecycle.deleteForm(owner.form.id, other.account.id)).rejects.toMatchObject({ code: 'not_found' });
    await t.services.lifecycle.deleteForm(owner.form.id, owner.account.id);

    const db = t.handle.db;
    expect(await t.services.forms.findForm(owner.form.id)).toBeUndefined();
    expect(await countStored(t, owner.form.id)).toBe(0);
    expect(await db.selectFrom('hooks').select('id').where('id', '=', hook.hook.id).execute()).toEqual([]);
    expect(await db.selectFrom('hook_deliveries').select('id').where('hook_id', '=', hook.hook.id).execute()).toEqual([]);
    expect(await db.selectFrom('outbox').select('submission_id').where('submission_id', '=', queued[0]!).execute()).toEqual([]);
    expect(await db.selectFrom('idempotency_keys').select('form_id').where('form_id', '=', owner.form.id).execute()).toEqual([]);
    expect(await countStored(t, sibling.id)).toBe(1);
    expect(await db.selectFrom('idempotency_keys').select('form_id').where('form_id', '=', sibling.id).execute()).toHaveLength(1);
    expect((await submit(t, owner.form.id, { json: { late: 1 } }, JSON_ACCEPT)).status).toBe(404);
  });
});

describe('deleting an account', () => {
  it('deletes its forms through the lifecycle first: submissions, queued work and hooks go, other accounts keep theirs', async () => {
    const account = await createAccount(t.services, { planId: 'pro', password: 'correct horse battery' });
    const first = await createForm(t.services, account.id);
    const second = await createForm(t.services, account.id);
    const hook = await t.services.hooks.createHook(account.id, { formId: first.id, targetUrl: `${receiver.url}/account-gone` });
    const queued = await insertSubmissions(t.services, first.id, [{ createdAt: nowIso() }, { createdAt: nowIso() }]);
    await insertSubmissions(t.services, second.id, [{ createdAt: nowIso() }]);
    await t.handle.db.insertInto('outbox').values(queued.map((id) => ({ submission_id: id, created_at: nowIso() }))).execute();
    const other = await createOwner(t.services);
    await insertSubmissions(t.services, other.form.id, [{ createdAt: nowIso() }]);

    await t.services.accounts.deleteAccount(account.id, account.id, account.email, { password: 'correct horse battery', signedOnAt: null });

    const db = t.handle.db;
    expect(await t.services.accounts.findAccount(account.id)).toBeUndefined();
    expect(await t.services.forms.findForm(first.id)).toBeUndefined();
    expect(await t.services.forms.findForm(second.id)).toBeUndefined();
    expect(await countStored(t, first.id)).toBe(0);
    expect(await countStored(t, second.id)).toBe(0);
    expect(await db.selectFrom('outbox').select('submission_id').where('submission_id', 'in', queued).execute()).toEqual([]);
    expect(await db.selectFrom('hooks').select('id').where('id', '=', hook.hook.id).execute()).toEqual([]);
    expect(await countStored(t, other.form.id)).toBe(1);
  });
});

describe('deleting a form on another instance', () => {
  it('a submit that still has the form cached is answered 404, never 500', async () => {
    const owner = await createOwner(t.services);
    const other = await buildTestApp({ database: t.database });
    try {
      expect((await submit(t, owner.form.id, { json: { a: 1 } }, JSON_ACCEPT)).status).toBe(200); // now cached here
      await other.services.lifecycle.deleteForm(owner.form.id);
      const res = await submit(t, owner.form.id, { json: { a: 2 } }, JSON_ACCEPT);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe('not_found');
    } finally {
      await other.close();
    }
  });
});

describe('storeIp', () => {
  it('with none, neither the row nor the hook body holds an address; the country is still resolved', async () => {
    const owner = await createOwner(t.services, { planId: 'pro', form: { storeIp: 'none' } });
    await t.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/noip` });
    const res = await submit(t, owner.form.id, { json: { name: 'Ada' } }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    const row = (await storedSubmission(t, submissionId))!;
    expect(row.ip).toBe('');
    expect(row.country).toBe('XX');
    expect(JSON.stringify(row)).not.toContain('127.0.0.1');
    await waitFor(() => receiver.received.some((r) => r.headers['webhook-id']?.toString().startsWith(submissionId)), 15_000, 'the delivery');
    const body = receiver.received.find((r) => r.headers['webhook-id']?.toString().startsWith(submissionId))!.body;
    expect(JSON.parse(body)).toMatchObject({ id: submissionId, ip: '', country: 'XX' });
    expect(body).not.toContain('127.0.0.1');

    const full = await createForm(t.services, owner.account.id);
    const res2 = await submit(t, full.id, { json: { name: 'Ada' } }, JSON_ACCEPT);
    expect((await storedSubmission(t, ((await res2.json()) as { submissionId: string }).submissionId))!.ip).toBe('127.0.0.1');
  });

  it('with none, a country header is still honoured', async () => {
    const withHeader = await buildTestApp({ env: { COUNTRY_HEADER: 'cf-ipcountry' } });
    try {
      const owner = await createOwner(withHeader.services, { form: { storeIp: 'none' } });
      const res = await submit(withHeader, owner.form.id, { json: { a: 1 } }, { ...JSON_ACCEPT, 'cf-ipcountry': 'DE' });
      const row = (await storedSubmission(withHeader, ((await res.json()) as { submissionId: string }).submissionId))!;
      expect(row).toMatchObject({ ip: '', country: 'DE' });
    } finally {
      await withHeader.close();
    }
  });
});
