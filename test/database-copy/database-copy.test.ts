import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import { CopyRefusedError, DatabaseCopyService } from '../../src/features/database-copy/database-copy.service.js';
import type { CopyProgress } from '../../src/features/database-copy/database-copy.types.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.js';
import { servicesFor } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';
import { dumpTables, normalized, WRITTEN_TABLES, writeWithEveryFeature, type Written } from './populated.js';

const other: Dialect = testDialect === 'sqlite' ? 'postgres' : 'sqlite';
const appEnv = { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000' };

let receiver: HttpsReceiver;
let sink: SmtpSink;
let source: TestDatabase;
let middle: TestDatabase;
let final: TestDatabase;
let written: Written;
/** Every page of the API's submission list before the copy: its IDs and its nextCursor. */
let pagesBefore: Array<{ ids: string[]; nextCursor: string | null }>;
const cleanups: Array<() => Promise<void>> = [];

async function pages(t: AppUnderTest, apiKey: string, formId: string) {
  const result: Array<{ ids: string[]; nextCursor: string | null }> = [];
  let cursor: string | null = null;
  do {
    const res = await t.fetch(`/v1/api/forms/${formId}/submissions?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { submissions: Array<{ id: string }>; nextCursor: string | null };
    result.push({ ids: body.submissions.map((s) => s.id), nextCursor: body.nextCursor });
    cursor = body.nextCursor;
  } while (cursor);
  return result;
}

/** Copies `from` into `to` with the service, as `formgate db copy` does. */
async function copy(from: TestDatabase, to: TestDatabase, options: { batchSize?: number; onProgress?: (p: CopyProgress) => void } = {}) {
  const [a, b] = [from.open(), to.open()];
  try {
    return await new DatabaseCopyService(a).copyTo(b, options);
  } finally {
    await a.close();
    await b.close();
  }
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  receiver.respond((_req, res) => res.writeHead(200).end('ok'));
  sink = await startSmtpSink();
  source = await createTestDatabase();
  middle = await createTestDatabase({ dialect: other });
  final = await createTestDatabase();
  cleanups.push(() => receiver.close(), () => sink.close(), () => source.drop(), () => middle.drop(), () => final.drop());
  const t = await buildTestApp({ database: source, env: { ...appEnv, SMTP_URL: sink.url }, hookTransport: { ca: receiver.ca } });
  try {
    written = await writeWithEveryFeature(t, receiver, sink);
    pagesBefore = await pages(t, written.apiKey, written.formId);
  } finally {
    // The service is stopped before a copy.
    await t.close();
  }
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

describe(`formgate db copy: ${testDialect} → ${other} → ${testDialect}`, () => {
  it('the source holds rows of every feature', async () => {
    const handle = source.open();
    try {
      const dump = await dumpTables(handle.db, handle.dialect);
      const empty = WRITTEN_TABLES.filter((table) => (dump[table] ?? []).length === 0);
      expect(empty).toEqual([]);
      expect(dump.submissions!.map((s) => s.spam_reason)).toEqual(expect.arrayContaining(['honeypot', 'blocked_term', 'blocked_email', null]));
    } finally {
      await handle.close();
    }
  });

  it('copies there and back, in batches, and the rows come back identical', async () => {
    const progress: CopyProgress[] = [];
    const there = await copy(source, middle, { batchSize: 10, onProgress: (p) => progress.push(p) });
    expect(there.matched).toBe(true);
    for (const count of there.tables) expect(count.target, count.table).toBe(count.source);
    expect(there.tables.find((c) => c.table === 'submissions')!.source).toBe(51);
    // Submissions come in batches of 10, each reported; parents before children.
    const submissions = progress.filter((p) => p.table === 'submissions').map((p) => p.copied);
    expect(submissions).toEqual([0, 10, 20, 30, 40, 50, 51]);
    const order = there.tables.map((c) => c.table);
    expect(order.indexOf('accounts')).toBeLessThan(order.indexOf('forms'));
    expect(order.indexOf('forms')).toBeLessThan(order.indexOf('submissions'));
    expect(order.indexOf('hooks')).toBeLessThan(order.indexOf('hook_deliveries'));
    expect(order).not.toContain('kysely_migration');
    expect(order).not.toContain('submissions_fts_watermark');

    const back = await copy(middle, final);
    expect(back.matched).toBe(true);

    const [a, m, b] = [source.open(), middle.open(), final.open()];
    try {
      const original = await dumpTables(a.db, a.dialect);
      expect(await dumpTables(b.db, b.dialect)).toEqual(original);
      expect(normalized(await dumpTables(m.db, m.dialect))).toEqual(normalized(original));
    } finally {
      await Promise.all([a.close(), m.close(), b.close()]);
    }
  });

  it('the key made before the copy pages through the same submissions with the same cursors; submit URLs and hook secrets work', async () => {
    for (const database of [middle, final]) {
      const t = await buildTestApp({ database, env: appEnv, hookTransport: { ca: receiver.ca } });
      try {
        expect(await pages(t, written.apiKey, written.formId)).toEqual(pagesBefore);
        // A cursor issued before the copy continues where it did.
        const res = await t.fetch(`/v1/api/forms/${written.formId}/submissions?limit=7&cursor=${encodeURIComponent(pagesBefore[1]!.nextCursor!)}`, {
          headers: { authorization: `Bearer ${written.apiKey}` },
        });
        expect(((await res.json()) as { submissions: Array<{ id: string }> }).submissions.map((s) => s.id)).toEqual(pagesBefore[2]!.ids);

        const before = receiver.received.length;
        const sent = await submit(t, written.formId, { json: { access_key: written.accessKey, name: `After ${database.dialect}`, email: 'after@example.org' } }, { ...JSON_ACCEPT, origin: 'https://site.example' });
        expect(sent.status).toBe(200);
        const { submissionId } = (await sent.json()) as { submissionId: string };
        await waitFor(() => receiver.received.slice(before).some((r) => r.url === '/hook'), 15_000, 'the hook delivery from the copy');
        const delivery = receiver.received.slice(before).find((r) => r.url === '/hook')!;
        const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
        expect(new Webhook(written.hookSecret).verify(delivery.body, headers)).toMatchObject({ id: submissionId });
        // The search finds old and new submissions (a SQLite copy indexes them after the copy).
        const found = await t.services.submissionBrowser.browse(written.accountId, written.formId, { q: 'pricing' });
        expect(found.submissions.map((s) => s.payload.name)).toEqual(['Grace']);
      } finally {
        await t.close();
      }
    }
  });

  it('refuses a target that is not empty, writing nothing', async () => {
    const target = await createTestDatabase({ dialect: other });
    cleanups.push(() => target.drop());
    const handle = target.open();
    try {
      const only = await servicesFor(handle).accounts.createAccount({ email: 'someone@example.com' });
      const before = await dumpTables(handle.db, handle.dialect);
      const refusal = copy(source, target);
      await expect(refusal).rejects.toThrow(CopyRefusedError);
      await expect(refusal).rejects.toThrow(/not empty \(rows in accounts, users, memberships\); nothing was written/);
      expect(await dumpTables(handle.db, handle.dialect)).toEqual(before);
      expect(before.accounts!.map((a) => a.id)).toEqual([only.id]);
    } finally {
      await handle.close();
    }
  });

  it('refuses a target that is not migrated, or migrated differently', async () => {
    const bare = await createTestDatabase({ dialect: other, empty: true });
    cleanups.push(() => bare.drop());
    await expect(copy(source, bare)).rejects.toThrow(/target database is not migrated: run `formgate migrate`/);
    const handle = bare.open();
    try {
      expect(Object.keys(await dumpTables(handle.db, handle.dialect))).toEqual([]);
    } finally {
      await handle.close();
    }
  });
});
